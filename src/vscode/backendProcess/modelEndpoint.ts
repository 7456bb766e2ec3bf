/**
 * The model endpoint's real state for the chat header: the bundled backend's connection says
 * nothing about whether its model endpoint answers (an unreachable Ollama is no "Connected
 * llama3.2"). Each time the bundled backend starts with a model, and after Select Model,
 * one connection test (src/vscode/backendProcess/endpointProbe.ts) says whether it answers; a run
 * whose model did not answer, or did, says so too. The latest word wins; a new test first forgets
 * the old result, so the header never shows a new model with the old endpoint's reason.
 */
import * as vscode from 'vscode';
import { probeModelEndpoint, type EndpointProbe } from './endpointProbe';
import type { ClientToolsConfig } from '../settings/config';

export class ModelEndpointCheck implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a connection test finished (or a configuration without one cleared the last result). */
  readonly onDidChange = this.changed.event;
  private latest: EndpointProbe | undefined;
  private generation = 0;

  /**
   * Tests `model`'s endpoint. Only an OpenAI-compatible base URL is tested (Azure routes by
   * deployment; no base URL is the offline demo); for anything else the header shows no endpoint state.
   */
  async check(model: ClientToolsConfig['model'], apiKey: string | undefined): Promise<EndpointProbe | undefined> {
    const generation = ++this.generation;
    if (this.latest) {
      this.latest = undefined;
      this.changed.fire();
    }
    const testable = model.provider === 'openai' && model.baseUrl !== '';
    const probe = testable ? await probeModelEndpoint({ baseUrl: model.baseUrl, model: model.name, apiKey }) : undefined;
    // A later check (the settings changed again meanwhile) owns the header.
    if (generation !== this.generation) return probe;
    this.latest = probe;
    this.changed.fire();
    return probe;
  }

  /** A run's model request got no answer (MODEL_TIMEOUT): the endpoint is not usable now, whatever the last test said. */
  noteNoAnswer(reason: string): void {
    this.generation++;
    this.latest = { reachable: false, reason };
    this.changed.fire();
  }

  /** A run got its answer: the endpoint works, whatever the last test said. */
  noteAnswered(): void {
    if (!this.latest || this.latest.reachable) return;
    this.generation++;
    this.latest = { reachable: true, modelListed: undefined };
    this.changed.fire();
  }

  /** Why the model endpoint cannot be used, for the chat header; undefined while it answers or was not tested. */
  get unreachableReason(): string | undefined {
    return this.latest && !this.latest.reachable ? this.latest.reason : undefined;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
