// Schemas are exported as a namespace because the inferred types share their names.
export * as Schemas from './schemas';
export { CLIENT_TO_SERVER_TYPES, SERVER_TO_CLIENT_TYPES } from './schemas';
export { RUN_EVENT_TYPES } from './schemas';
export * from './constants';
export * from './errors';
export * from './types';
export * from './codec';
export * from './jsonStructure';
export { assertNever, assertNeverOr } from './assertNever';
export { isRunEvent } from './runEvents';
export { count, cutWithNote, measureText, type TextSize } from './textCut';
export { digestedFunctionName, isPlainFunctionName, toFunctionName } from './functionNames';
