/**
 * The one place an `openai` SDK client is built, for both wires: `OpenAI` for OpenAI and compatible
 * servers, `AzureOpenAI` for Azure (deployment routing, `api-version`, `api-key` header or an Entra
 * ID bearer token). The SDK's own log goes to the backend's logger.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import { logAt } from '../../base/logger';
import type { Logger } from '../log';
import { boundedFetch } from './boundedFetch';
import { DEFAULT_STREAM_LIMITS } from './streamGuard';
import type { OpenAIModelConfig } from './modelConfig';

export function createOpenAIClient(config: OpenAIModelConfig, log: Logger): OpenAI {
  const forward = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, ...rest: unknown[]) =>
    logAt(log, level, `[openai] ${[message, ...rest.map((r) => (typeof r === 'string' ? r : safeJson(r)))].join(' ')}`);
  const common = {
    maxRetries: config.maxRetries ?? 2,
    timeout: config.timeoutMs ?? 600_000,
    // One streamed event carries at most the whole answer (the Responses API's last events repeat it), plus its framing.
    fetch: boundedFetch(config.fetch ?? ((input, init) => fetch(input, init)), `${config.model} at ${endpointLabel(config)}`, (config.maxAnswerBytes ?? DEFAULT_STREAM_LIMITS.maxAnswerBytes) + 64 * 1024),
    logger: { error: forward('error'), warn: forward('warn'), info: forward('debug'), debug: forward('debug') },
  };
  if (config.provider !== 'azure') {
    return new OpenAI({ apiKey: config.apiKey || 'not-set', baseURL: config.baseURL || undefined, ...common });
  }
  const azure = config.azure;
  if (!azure?.endpoint) throw new Error('The Azure provider needs an endpoint (--azure-endpoint, or clientTools.model.azure.endpoint).');
  if (!azure.apiVersion) throw new Error('The Azure provider needs an api-version (--azure-api-version).');
  const token = azure.entraToken;
  return new AzureOpenAI({
    // The base URL the SDK would derive from `endpoint`, given whole: an absent one makes it read
    // OPENAI_BASE_URL, which names another provider's server.
    baseURL: `${azure.endpoint.replace(/\/+$/, '')}/openai`,
    apiVersion: azure.apiVersion,
    deployment: azure.deployment || config.model,
    // Exactly one of the two: the SDK refuses both, and with neither it reads AZURE_OPENAI_API_KEY itself.
    ...(token ? { azureADTokenProvider: () => Promise.resolve(token) } : { apiKey: config.apiKey || 'not-set' }),
    ...common,
  });
}

/** Where the model lives, for error sentences (never the key). */
export function endpointLabel(config: OpenAIModelConfig): string {
  if (config.provider === 'azure') return `Azure OpenAI ${config.azure?.endpoint ?? ''} (deployment ${config.azure?.deployment || config.model})`.replace('  ', ' ');
  return config.baseURL || 'the OpenAI API';
}

/** `v` as JSON text; a note for a value that cannot be (nested too deeply for `JSON.stringify`). */
export function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch (e) {
    return `[a JSON value that could not be printed: ${e instanceof Error ? e.message : String(e)}]`;
  }
}
