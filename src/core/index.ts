/** The public surface of core for src/vscode. */
export * from './client';
export * from './connection';
export * from './dispatcher';
export * from '../base/events';
export * from './host';
export * from '../base/logger';
export * from './paths';
export * from './permissions';
export * from './registry';
export * from './timers';
export * from './tool';
export * from './toolIdentity';
