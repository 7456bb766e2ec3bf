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

export type Hello = z.infer<M['Hello']>;
export type ClientToolInvokeResponse = z.infer<M['ClientToolInvokeResponse']>;
export type ClientToolProgress = z.infer<M['ClientToolProgress']>;
export type UserMessage = z.infer<M['UserMessage']>;
export type Cancel = z.infer<M['Cancel']>;
export type ResetThread = z.infer<M['ResetThread']>;
export type UpdateToolGroups = z.infer<M['UpdateToolGroups']>;
export type Welcome = z.infer<M['Welcome']>;
export type ClientToolInvokeRequest = z.infer<M['ClientToolInvokeRequest']>;
export type ClientToolCancel = z.infer<M['ClientToolCancel']>;
export type RunStarted = z.infer<M['RunStarted']>;
export type TextDelta = z.infer<M['TextDelta']>;
export type ToolCallStarted = z.infer<M['ToolCallStarted']>;
export type ToolCallUpdated = z.infer<M['ToolCallUpdated']>;
export type ToolCallEnded = z.infer<M['ToolCallEnded']>;
export type GroupExpanded = z.infer<M['GroupExpanded']>;
export type RunFinished = z.infer<M['RunFinished']>;
export type RunError = z.infer<M['RunError']>;
export type ToolGroupState = z.infer<M['ToolGroupState']>;
export type ErrorMessage = z.infer<M['Error']>;

/** Every message the extension sends to the backend. */
export type ClientToServer = z.infer<M['ClientToServer']>;
/** Every message the backend sends to the extension. */
export type ServerToClient = z.infer<M['ServerToClient']>;
/** Run events: the part of ServerToClient the chat view renders. */
export type RunEvent = RunStarted | TextDelta | ToolCallStarted | ToolCallUpdated | ToolCallEnded | GroupExpanded | RunFinished | RunError;
export type AnyMessage = ClientToServer | ServerToClient;
