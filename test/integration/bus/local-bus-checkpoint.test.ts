import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LocalBus } from '../../../src/bus/local/local-bus';
import { bulkBody } from './fixtures/bus-bulk-sender';

const MB = 1024 * 1024;
const REGISTER = path.resolve(__dirname, '../../../src/platform/swc-register.js');
const SENDER = path.join(__dirname, 'fixtures', 'bus-bulk-sender.ts');

const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('LocalBus WAL checkpoints on a worker thread', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-bus-checkpoint-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every send that resolved when the process is SIGKILLed while its worker checkpoints', async () => {
    const queue = 'bulk';
    const batch = 100;
    const bytes = 3000;
    // The pause between sends leaves the checkpoint worker time on a loaded machine (CI once
    // reached 7,000 sends before the worker's first checkpoint).
    const child = spawn(process.execPath, ['-r', REGISTER, SENDER, JSON.stringify({ dataDir, queue, batch, bytes, pauseMs: 5 })], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let acknowledged = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const sent = [...chunk.toString().matchAll(/SENT (\d+)/g)].map((m) => Number(m[1]));
      if (sent.length > 0) acknowledged = Math.max(acknowledged, ...sent);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const file = path.join(dataDir, 'bus.sqlite');
    try {
      // A message takes a page, so 7,000 of them stay below SQLite's own auto-checkpoint
      // (8,192 pages): a database file beyond 4 MiB by then shows the worker's checkpoints
      // (from 4,096 pages waiting).
      await until(() => sizeOf(file) > 4 * MB || acknowledged >= 7000 || child.exitCode !== null, 30_000);
      expect(stderr).toBe('');
      expect(sizeOf(file)).toBeGreaterThan(4 * MB);
      await until(() => acknowledged >= 9000, 30_000);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }

    const bus = await LocalBus.open({ dataDir, queues: [queue] });
    try {
      const { active } = await bus.counts(queue);
      expect(active).toBeGreaterThanOrEqual(acknowledged);
      expect(active % batch).toBe(0);
      const stored = await bus.peek(queue, { maxMessages: active + batch });
      expect(stored.map((m) => m.messageId)).toEqual(Array.from({ length: active }, (_, i) => `m-${i}`));
      expect(stored.every((m, i) => Buffer.from(m.body).toString() === bulkBody(i, bytes))).toBe(true);
    } finally {
      await bus.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  }, 60_000);
});
