import type { z } from 'zod';
import type * as S from './schemas';

type M = typeof S.Messages;

export type ToolDefinition = z.infer<typeof S.ToolDefinition>;
export type SkillDefinition = z.infer<typeof S.SkillDefinition>;
export type ToolGroupDefinition = z.infer<typeof S.ToolGroupDefinition>;
export type Augmentation = z.infer<typeof S.Augmentation>;
export type ContextItem = z.infer<typeof S.ContextItem>;
export type ContentItem = z.infer<typeof S.ContentItem>;
export type TextContent = z.infer<typeof S.TextContent>;
export type JsonContent = z.infer<typeof S.JsonContent>;
export type BinaryContent = z.infer<typeof S.BinaryContent>;
export type EditorContext = z.infer<typeof S.EditorContext>;
export type DeclineStrategy = z.infer<typeof S.DeclineStrategy>;
export type ProgressStatus = z.infer<typeof S.ProgressStatus>;
export type Executor = z.infer<typeof S.Executor>;
export type ToolCallOutcome = z.infer<typeof S.ToolCallOutcome>;
export type FinishReason = z.infer<typeof S.FinishReason>;
export type GroupState = z.infer<typeof S.GroupState>;
export type TokenCounts = z.infer<typeof S.TokenCounts>;
export type RunUsage = z.infer<typeof S.RunUsage>;
export type HelloLimits = z.infer<typeof S.HelloLimits>;

/** Every message the extension sends to the backend. */
export type ClientToServer = z.infer<M['ClientToServer']>;
/** Every message the backend sends to the extension. */
export type ServerToClient = z.infer<M['ServerToClient']>;
/** Run events: the part of ServerToClient the chat view renders (RUN_EVENT_TYPES). */
export type RunEvent = z.infer<M['RunEvent']>;
export type AnyMessage = ClientToServer | ServerToClient;
/** Any message's type: `MessageType` is the set a switch over `message.type` must cover. */
export type MessageType = AnyMessage['type'];
/** The message whose `type` is `T`, e.g. `MessageOf<'welcome'>`; a new message needs no alias of its own. */
export type MessageOf<T extends MessageType> = Extract<AnyMessage, { type: T }>;

// Named aliases the code already uses, derived from the unions above.
export type Hello = MessageOf<'hello'>;
export type ClientToolInvokeResponse = MessageOf<'clientToolInvokeResponse'>;
export type ClientToolProgress = MessageOf<'clientToolProgress'>;
export type UserMessage = MessageOf<'userMessage'>;
export type Cancel = MessageOf<'cancel'>;
export type ResetThread = MessageOf<'resetThread'>;
export type UpdateToolGroups = MessageOf<'updateToolGroups'>;
export type Steer = MessageOf<'steer'>;
export type WithdrawSteer = MessageOf<'withdrawSteer'>;
export type SteerUpdated = MessageOf<'steerUpdated'>;
export type CompactThread = MessageOf<'compactThread'>;
export type ContextUsage = MessageOf<'contextUsage'>;
export type Welcome = MessageOf<'welcome'>;
export type ClientToolInvokeRequest = MessageOf<'clientToolInvokeRequest'>;
export type ClientToolCancel = MessageOf<'clientToolCancel'>;
export type RunStarted = MessageOf<'runStarted'>;
export type TextDelta = MessageOf<'textDelta'>;
export type ToolCallStarted = MessageOf<'toolCallStarted'>;
export type ToolCallUpdated = MessageOf<'toolCallUpdated'>;
export type ToolCallEnded = MessageOf<'toolCallEnded'>;
export type GroupExpanded = MessageOf<'groupExpanded'>;
export type RunFinished = MessageOf<'runFinished'>;
export type RunError = MessageOf<'runError'>;
export type ToolGroupState = MessageOf<'toolGroupState'>;
export type ErrorMessage = MessageOf<'error'>;
