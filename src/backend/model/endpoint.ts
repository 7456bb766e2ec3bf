/**
 * Which service a model config talks to and over which wire: the fields `createChatModel`
 * (factory.ts) reads to pick the adapter and the SDK client. Types only.
 */

/** `chat`: Chat Completions (every OpenAI-compatible server). `responses`: the Responses API (OpenAI, Azure). */
export type ModelApi = 'chat' | 'responses';
export const MODEL_APIS: readonly ModelApi[] = ['chat', 'responses'];

/** `openai`: OpenAI or any compatible base URL. `azure`: Azure OpenAI through the SDK's `AzureOpenAI` client. */
export type ModelProvider = 'openai' | 'azure';
export const MODEL_PROVIDERS: readonly ModelProvider[] = ['openai', 'azure'];

export interface AzureEndpoint {
  /** The resource, e.g. `https://my-resource.openai.azure.com/`. */
  endpoint: string;
  /** The deployment to call; defaults to the model name (Azure routes by deployment, not model). */
  deployment?: string;
  /** The `api-version` query parameter every Azure request carries. */
  apiVersion: string;
  /**
   * A Microsoft Entra ID access token, sent as `Authorization: Bearer` instead of the `api-key`
   * header. Static: it is not refreshed, so a long-running backend needs a restart when it expires.
   */
  entraToken?: string;
}

export const DEFAULT_AZURE_API_VERSION = '2025-04-01-preview';

export interface EndpointChoice {
  /** Default `openai`. */
  provider?: ModelProvider;
  /** Default `chat`. */
  api?: ModelApi;
  /** Required when `provider` is `azure`. */
  azure?: AzureEndpoint;
}
