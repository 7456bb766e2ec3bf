/** The public surface of core for src/vscode. */
export * from './clientCore';
export * from './connection';
export * from './dispatcher';
export * from '../base/events';
export * from './host';
export * from '../base/logger';
export * from './paths';
export * from './consent/permissionGate';
export * from './registry';
export * from './timers';
export * from './tool';
export * from './consent/toolIdentity';
