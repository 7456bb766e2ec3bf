/**
 * What the `openai` SDK throws, turned into a coded, key-free `ModelFailure`; one mapping for both
 * wires (Chat Completions and Responses) and both providers.
 */
import OpenAI from 'openai';
import { ErrorCode } from '../../protocol';
import { ModelFailure } from './chatModel';
import { endpointLabel } from './client';
import type { OpenAIModelConfig } from './modelConfig';

export function toModelFailure(e: unknown, config: OpenAIModelConfig): ModelFailure {
  if (e instanceof ModelFailure) return e;
  const where = endpointLabel(config);
  const secrets = [config.apiKey, config.azure?.entraToken].filter((s): s is string => !!s);
  const scrub = (s: string) => secrets.reduce((text, secret) => text.split(secret).join('***'), s);
  if (e instanceof OpenAI.AuthenticationError || e instanceof OpenAI.PermissionDeniedError) {
    return new ModelFailure(ErrorCode.ModelAuth, scrub(`The model endpoint ${where} refused the ${config.azure?.entraToken ? 'Entra ID token' : 'API key'} (HTTP ${e.status}): ${e.message}. ${authHint(config)}`), false);
  }
  if (e instanceof OpenAI.RateLimitError) {
    return new ModelFailure(ErrorCode.ModelRateLimited, scrub(`The model endpoint ${where} is rate limiting (HTTP 429) and kept doing so after ${config.maxRetries ?? 2} retries: ${e.message}`), true);
  }
  if (e instanceof OpenAI.APIConnectionError) {
    return new ModelFailure(ErrorCode.ModelError, scrub(`Could not reach the model endpoint ${where}: ${e.message}`), true);
  }
  if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
    const retryable = e.status >= 500 || e.status === 408 || e.status === 409;
    return new ModelFailure(ErrorCode.ModelError, scrub(`The model endpoint ${where} failed (HTTP ${e.status}): ${e.message}`), retryable);
  }
  if (e instanceof OpenAI.APIError) {
    return new ModelFailure(ErrorCode.ModelError, scrub(`The model stream reported an error: ${e.message}`), true);
  }
  const message = e instanceof Error ? e.message : String(e);
  return new ModelFailure(ErrorCode.ModelError, scrub(`The model stream was malformed: ${message}`), true);
}

function authHint(config: OpenAIModelConfig): string {
  if (config.azure?.entraToken) return 'Tokens expire after about an hour: get a fresh one with `az account get-access-token` (AZURE_OPENAI_AD_TOKEN for the CLI).';
  const env = config.provider === 'azure' ? 'AZURE_OPENAI_API_KEY' : 'OPENAI_API_KEY';
  return config.apiKey
    ? `Check the key with "Client Tools: Set API Key" (or ${env} for the CLI).`
    : `No API key is set: use "Client Tools: Set API Key" (or ${env} for the CLI).`;
}
