import { MemorySharedState } from '../../../../src/backend/state/memorySharedState';
import { stateContract } from './stateContract';

stateContract('MemorySharedState', () => {
  const a = new MemorySharedState({ replica: 'replica-a' });
  return Promise.resolve({ a, b: a.peer('replica-b') });
});
