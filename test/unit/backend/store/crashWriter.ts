/**
 * The writer the crash test kills: appends records of random size (up to 1 MiB, so a kill often
 * lands mid-write) to one thread, and prints `ack N` only after append N resolved (was fsynced).
 * argv: dataDir, first sequence number.
 */
import { randomInt } from 'node:crypto';
import { silentLogger } from '../../../../src/base/logger';
import { LogStore } from '../../../../src/backend/store/logStore';

async function main(): Promise<void> {
  const [dataDir, first] = process.argv.slice(2);
  const store = await LogStore.open(dataDir, silentLogger);
  process.stdout.write('ready\n');
  for (let n = Number(first); ; n++) {
    const filler = 'x'.repeat(randomInt(1, 1024 * 1024));
    await store.append('crash-thread', [{ kind: 'message', message: { role: 'user', content: `${n}:${filler}` } }]);
    process.stdout.write(`ack ${n}\n`);
  }
}

void main();
