import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalBus } from '../../src/bus/local/local-bus';
import type { OutgoingMessage } from '../../src/bus/message-bus';
import { makeBody, report, workloadFromArgv } from './workload';

/**
 * Child process: the local bus with default queue options (duplicate detection on, WAL,
 * `synchronous` as the workload says, else NORMAL) in a fresh temp folder. Send in chunks, then
 * `concurrency` receivers each loop receive (up to `prefetch`) → complete until every message
 * is completed.
 */
async function main(): Promise<void> {
  const workload = workloadFromArgv();
  const { messages, concurrency, prefetch, sendChunk } = workload;
  const body = makeBody(workload.bodyBytes);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-bench-bus-'));
  const bus = await LocalBus.open({ dataDir, queues: ['bench'], synchronous: workload.synchronous });
  try {
    const start = performance.now();
    for (let i = 0; i < messages; i += sendChunk) {
      const chunk: OutgoingMessage[] = [];
      for (let j = i; j < Math.min(messages, i + sendChunk); j++) chunk.push({ body });
      await bus.send('bench', chunk);
    }
    const sent = performance.now();
    let completed = 0;
    // Stamped when the last message completes, like BullMQ's last 'completed' event; receivers
    // still waiting for more then stop after their wait.
    let done = 0;
    const receiver = async () => {
      while (completed < messages) {
        const received = await bus.receive('bench', { maxMessages: prefetch, maxWaitMs: 200 });
        await Promise.all(received.map((m) => bus.complete(m)));
        completed += received.length;
        if (completed === messages) done = performance.now();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, receiver));
    const left = await bus.counts('bench');
    if (completed !== messages || left.active !== 0) {
      throw new Error(`completed ${completed} of ${messages}; ${left.active} still active`);
    }
    report(prefetch > 1 ? `local bus (prefetch ${prefetch})` : 'local bus', workload, start, sent, done);
  } finally {
    await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
