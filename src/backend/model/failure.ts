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
    // The SDK says only "Connection error."; the reason is in the causes (ECONNREFUSED, ENOTFOUND, …).
    const reason = connectionReason(e);
    return new ModelFailure(ErrorCode.ModelError, scrub(`Could not reach ${config.model} at ${where}: ${reason}.`), true, scrub(`Could not reach ${config.model} at ${where}: ${reason}`));
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

const CONNECTION_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused (is the server running?)',
  ENOTFOUND: 'host not found (check the base URL)',
  EAI_AGAIN: 'host not found (check the base URL and the network)',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
};

/** The network's own reason for a connection error, in words: the error code found in its causes, else the SDK's message. */
function connectionReason(e: Error): string {
  let cause: unknown = e;
  for (let depth = 0; depth < 5 && cause; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_REASONS[code]) return CONNECTION_REASONS[code];
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `network error ${code}`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return e.message.replace(/\.$/, '');
}

function authHint(config: OpenAIModelConfig): string {
  if (config.azure?.entraToken) return 'Tokens expire after about an hour: get a fresh one with `az account get-access-token` (AZURE_OPENAI_AD_TOKEN for the CLI).';
  const env = config.provider === 'azure' ? 'AZURE_OPENAI_API_KEY' : 'OPENAI_API_KEY';
  return config.apiKey
    ? `Check the key with "Client Tools: Set API Key" (or ${env} for the CLI).`
    : `No API key is set: use "Client Tools: Set API Key" (or ${env} for the CLI).`;
}
