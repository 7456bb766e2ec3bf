/**
 * `registerToolGroup` for other extensions (the API `activate()` returns). Their groups go through
 * the same registry as ours: schema compilation and name checks, the permission gate, the
 * dispatcher's logging, trust handling, and `updateToolGroups` to the backend on register and on
 * dispose. What they pass is checked and copied first, so a malformed definition fails at once
 * with INVALID_SCHEMA, and changing the objects afterwards (say, flipping `requiresPermission`)
 * changes nothing. The `prompt` and `detail` a `prepare` returns are the extension's words about
 * values the backend chose, so each is shown on one line (src/core/consent/consentText.ts), like a value.
 */
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../../protocol';
import type { ClientTool, Preparation, ToolGroupSpec, ToolRegistry } from '../../core';
import { consentValue } from '../../core/consent/consentText';

export function registerExternalGroup(registry: ToolRegistry, log: vscode.LogOutputChannel, group: unknown, tools: unknown): vscode.Disposable {
  const spec = checkGroup(group);
  if (!Array.isArray(tools)) throw invalid('tools: must be an array of tools');
  const copies = tools.map((t, i) => checkTool(t, `tools[${i}]`));
  const registration = registry.register(spec, copies);
  log.info(`Tool group ${spec.name} registered by another extension: ${copies.map((t) => `${t.name}${t.requiresPermission ? ' (asks permission)' : ''}`).join(', ')}`);
  let disposed = false;
  return new vscode.Disposable(() => {
    if (disposed) return;
    disposed = true;
    registration.dispose();
    log.info(`Tool group ${spec.name} unregistered by its extension`);
  });
}

function checkGroup(value: unknown): ToolGroupSpec {
  if (!isRecord(value)) throw invalid('group: must be an object');
  const spec: ToolGroupSpec = { name: str(value.name, 'group.name'), description: str(value.description, 'group.description') };
  if (value.functionResult !== undefined) spec.functionResult = str(value.functionResult, 'group.functionResult');
  if (value.systemPrompt !== undefined) spec.systemPrompt = str(value.systemPrompt, 'group.systemPrompt');
  if (value.startCollapsed !== undefined) spec.startCollapsed = bool(value.startCollapsed, 'group.startCollapsed');
  if (value.skills !== undefined) spec.skills = json(value.skills, 'group.skills') as ToolGroupSpec['skills'];
  return spec;
}

function checkTool(value: unknown, field: string): ClientTool {
  if (!isRecord(value)) throw invalid(`${field}: must be an object`);
  const run = value.run;
  const prepare = value.prepare;
  if (typeof run !== 'function') throw invalid(`${field}.run: must be a function`);
  if (prepare !== undefined && typeof prepare !== 'function') throw invalid(`${field}.prepare: must be a function`);
  if (value.declineStrategy !== 'reject' && value.declineStrategy !== 'skip') throw invalid(`${field}.declineStrategy: must be "reject" or "skip"`);
  const tool: ClientTool = {
    name: str(value.name, `${field}.name`),
    group: str(value.group, `${field}.group`),
    description: str(value.description, `${field}.description`),
    parameters: json(value.parameters, `${field}.parameters`) as ClientTool['parameters'],
    requiresPermission: bool(value.requiresPermission, `${field}.requiresPermission`),
    declineStrategy: value.declineStrategy,
    availableWhenUntrusted: value.availableWhenUntrusted === undefined ? false : bool(value.availableWhenUntrusted, `${field}.availableWhenUntrusted`),
    run: (args, ctx, prepared) => (run as ClientTool['run']).call(value, args, ctx, prepared),
  };
  if (value.hidden !== undefined) tool.hidden = bool(value.hidden, `${field}.hidden`);
  if (value.sequential !== undefined) tool.sequential = bool(value.sequential, `${field}.sequential`);
  if (typeof prepare === 'function') tool.prepare = async (args, ctx) => asConsent(await (prepare as NonNullable<ClientTool['prepare']>).call(value, args, ctx));
  return tool;
}

/** The preparation with its `detail` as one value of consent text; the same object kind, for the tool's `run`. */
function asConsent(prepared: Preparation): Preparation {
  if (!isRecord(prepared) || prepared.detail === undefined) return prepared;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(prepared) as object | null) as Preparation, prepared);
  copy.detail = consentValue(String(prepared.detail));
  return copy;
}

function str(v: unknown, field: string): string {
  if (typeof v !== 'string') throw invalid(`${field}: must be a string`);
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw invalid(`${field}: must be true or false`);
  return v;
}

/** A deep copy through JSON: schemas and skills are JSON, and a copy cannot be changed later. */
function json(v: unknown, field: string): unknown {
  try {
    return JSON.parse(JSON.stringify(v)) as unknown;
  } catch (e) {
    throw invalid(`${field}: must be plain JSON (${(e as Error).message})`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(message: string): CodedError {
  return new CodedError(ErrorCode.InvalidSchema, message);
}
