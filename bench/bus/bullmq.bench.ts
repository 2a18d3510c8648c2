import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeBody, report, skip, workloadFromArgv } from './workload';

/**
 * Child process: BullMQ on the local Redis (HIGHWATER_BENCH_REDIS_URL, default
 * redis://127.0.0.1:6379). addBulk in chunks, then one Worker with `concurrency` slots and a
 * no-op processor; completed jobs are removed (as the bus deletes completed messages).
 * Skipped with a notice when BullMQ's client `ioredis` is not installed or Redis is not reachable.
 */
function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function main(): Promise<void> {
  const workload = workloadFromArgv();
  const url = new URL(process.env.HIGHWATER_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const connection = { host: url.hostname, port: Number(url.port || 6379) };
  try {
    require.resolve('ioredis', { paths: [path.dirname(require.resolve('bullmq'))] });
  } catch {
    return skip('BullMQ 6 needs its optional peer `ioredis`, which is not installed (npm i -D ioredis)');
  }
  if (!(await reachable(connection.host, connection.port))) {
    return skip(`Redis is not reachable at ${connection.host}:${connection.port}`);
  }
  const { Queue, Worker } = await import('bullmq');
  const { messages, concurrency, sendChunk } = workload;
  const body = makeBody(workload.bodyBytes);
  const name = `highwater-bench-${process.pid}-${Date.now()}`;
  const queue = new Queue(name, { connection });
  try {
    const start = performance.now();
    for (let i = 0; i < messages; i += sendChunk) {
      const jobs = [];
      for (let j = i; j < Math.min(messages, i + sendChunk); j++) {
        jobs.push({ name: 'm', data: { body }, opts: { removeOnComplete: true, removeOnFail: true } });
      }
      await queue.addBulk(jobs);
    }
    const sent = performance.now();
    let completed = 0;
    const worker = new Worker(name, async () => undefined, { connection, concurrency, autorun: false });
    await new Promise<void>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('completed', () => {
        if (++completed === messages) resolve();
      });
      void worker.run();
    });
    const done = performance.now();
    await worker.close();
    report('BullMQ', workload, start, sent, done);
  } finally {
    await queue.obliterate({ force: true });
    await queue.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
