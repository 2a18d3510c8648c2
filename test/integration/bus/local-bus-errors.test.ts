import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LocalBus } from '../../../src/bus/local/local-bus';
import { BusError, type BusErrorCode } from '../../../src/bus/message-bus';

/** The BusError a promise rejects with (fails when it resolves or throws something else). */
async function busError(promise: Promise<unknown>): Promise<{ code: BusErrorCode; message: string }> {
  const err: unknown = await promise.then(
    () => new Error('expected a BusError, but the call succeeded'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BusError);
  const { code, message } = err as BusError;
  return { code, message };
}

describe('LocalBus errors', () => {
  let dataDir: string;
  let file: string;
  let now: number;
  let bus: LocalBus | undefined;
  const open = async (options: Partial<Parameters<typeof LocalBus.open>[0]> = {}) =>
    (bus = await LocalBus.open({ dataDir, queues: ['orders'], clock: { now: () => new Date(now) }, ...options }));

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-bus-errors-'));
    file = path.join(dataDir, 'bus.sqlite');
    now = Date.parse('2026-03-01T00:00:00Z');
  });
  afterEach(async () => {
    await bus?.close();
    bus = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('names an undeclared queue', async () => {
    const b = await open();
    expect(await busError(b.receive('nope'))).toEqual({ code: 'QueueNotFound', message: `Queue "nope" is not declared in the local bus ${file}` });
  });

  it('names the size and the limit of an oversized message', async () => {
    const b = await open({ queues: [{ name: 'orders', maxMessageSizeBytes: 1000 }] });
    expect(await busError(b.send('orders', [{ body: 'ok' }, { body: 'x'.repeat(1001) }]))).toEqual({
      code: 'MessageTooLarge',
      message: 'messages[1] is 1001 bytes; queue "orders" allows at most 1000 bytes',
    });
    expect(await b.counts('orders')).toEqual({ active: 0, scheduled: 0, deadLetter: 0 });
  });

  it('answers LockLost for a settlement after the lock expired', async () => {
    const b = await open();
    await b.send('orders', [{ body: 'x' }]);
    const [m] = await b.receive('orders');
    now += 60_001;
    expect(await busError(b.complete(m))).toEqual({
      code: 'LockLost',
      message: `The lock on message ${m.sequenceNumber} of queue "orders" is lost (expired, settled, or superseded by a later delivery)`,
    });
  });

  it('reports a file of garbage bytes as Corrupt, naming the file', async () => {
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    expect(await busError(open())).toEqual({
      code: 'Corrupt',
      message: `The local bus database ${file} is corrupt (not an SQLite database): file is not a database`,
    });
  });

  it('reports a database whose pages were overwritten as Corrupt', async () => {
    const b = await open();
    await b.send('orders', Array.from({ length: 50 }, (_, i) => ({ body: `message ${i}` })));
    await b.close();
    bus = undefined;
    const bytes = readFileSync(file);
    bytes.fill(0xa5, 100); // keeps the 100-byte header, destroys every page's content
    writeFileSync(file, bytes);
    const { code, message } = await busError(open());
    expect(code).toBe('Corrupt');
    expect(message).toBe(`The local bus database ${file} is corrupt (malformed database image): database disk image is malformed`);
  });

  it('refuses a database of another application or a newer schema', async () => {
    const foreign = new Database(file);
    foreign.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY)');
    foreign.close();
    expect(await busError(open())).toEqual({ code: 'Corrupt', message: `The local bus database ${file} holds tables of another application` });
    rmSync(file);
    const newer = new Database(file);
    newer.pragma('user_version = 99');
    newer.close();
    expect(await busError(open())).toEqual({
      code: 'Corrupt',
      message: `The local bus database ${file} has schema version 99; this Highwater supports up to 1`,
    });
  });

  it('answers Unavailable while another process holds the write lock beyond the busy timeout', async () => {
    const b = await open({ busyTimeoutMs: 100 });
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      const { code, message } = await busError(b.send('orders', [{ body: 'x' }]));
      expect(code).toBe('Unavailable');
      expect(message).toBe(`The local bus database ${file} is locked by another process beyond the busy timeout: database is locked`);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await b.send('orders', [{ body: 'x' }]);
    expect((await b.counts('orders')).active).toBe(1);
  });

  it('rejects bad options and arguments with InvalidArgument naming the property', async () => {
    const cases: Array<[Promise<unknown>, string]> = [
      [LocalBus.open({ dataDir: '' }), 'dataDir must be a non-empty path'],
      [LocalBus.open({ dataDir, queues: ['bad name'] }), `queue name "bad name" is invalid: use 1-260 letters, digits, '.', '-', '_' or '/', starting and ending with a letter or digit`],
      [LocalBus.open({ dataDir, queues: [{ name: 'q', lockDurationMs: 0 }] }), 'queues.q.lockDurationMs must be a positive integer, got 0'],
      [LocalBus.open({ dataDir, pollIntervalMs: -1 }), 'pollIntervalMs must be a positive integer, got -1'],
    ];
    for (const [promise, message] of cases) expect(await busError(promise)).toEqual({ code: 'InvalidArgument', message });
    const b = await open();
    const more: Array<[Promise<unknown>, string]> = [
      [b.send('orders', [{ body: 42 as unknown as string }]), 'messages[0].body must be a string or a Uint8Array'],
      [b.send('orders', [{ body: 'x', applicationProperties: { Nested: {} as unknown as string } }]), 'messages[0].applicationProperties.Nested must be a string, number, boolean or null, got object'],
      [b.receive('orders', { maxMessages: 0 }), 'options.maxMessages must be a positive integer, got 0'],
      [b.peek('orders', { fromSequenceNumber: 'abc' }), 'options.fromSequenceNumber must be a decimal sequence number, got "abc"'],
      [b.createQueue('q2', { maxDeliveryCount: 1.5 }), 'queues.q2.maxDeliveryCount must be a positive integer, got 1.5'],
    ];
    for (const [promise, message] of more) expect(await busError(promise)).toEqual({ code: 'InvalidArgument', message });
    const other = await LocalBus.open({ dataDir, queues: ['orders'] });
    const foreignBatch = await other.createBatch('orders');
    expect(await busError(b.sendBatch(foreignBatch))).toEqual({ code: 'InvalidArgument', message: 'batch must be created by createBatch of this bus' });
    await other.close();
  });

  it('refuses to dead-letter a dead-lettered message, and any call after close', async () => {
    const b = await open();
    await b.send('orders', [{ body: 'x' }]);
    const [m] = await b.receive('orders');
    await b.deadLetter(m, { reason: 'Manual' });
    const [dead] = await b.receive('orders', { subQueue: 'deadLetter' });
    expect(await busError(b.deadLetter(dead, { reason: 'Again' }))).toEqual({
      code: 'InvalidArgument',
      message: `Message ${dead.sequenceNumber} is already in the dead-letter subqueue of "orders"`,
    });
    await b.close();
    expect(await busError(b.receive('orders'))).toEqual({ code: 'InvalidArgument', message: `The local bus ${file} is closed` });
  });
});
