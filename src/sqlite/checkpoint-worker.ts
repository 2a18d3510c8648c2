import { Worker } from 'node:worker_threads';
import { workerEntry, workerScript } from '../platform/worker-entry';
import { SIGNAL_BYTES, STOP_SLOT, WAKE_SLOT, type CheckpointTarget, type CheckpointWorkerData, type FromCheckpointWorker, type ToCheckpointWorker } from './checkpoint-worker-protocol';

export type { CheckpointTarget } from './checkpoint-worker-protocol';

/**
 * One worker thread for the WAL checkpoints of every SQLite file of the process (the bus's and
 * SQLite targets'): a worker is a V8 isolate of its own, ~7 MB of RSS, too much to pay per file.
 * Started with the first file and stopped with the last. The worker (`checkpoint-worker-main.ts`)
 * waits on a shared counter ({@link wake}), picks up added and removed files with
 * `receiveMessageOnPort` (it never returns to an event loop), and reads each file's WAL index to
 * decide whether to checkpoint.
 */
export class CheckpointWorker {
  private static current: CheckpointWorker | undefined;
  private readonly signal = new Int32Array(new SharedArrayBuffer(SIGNAL_BYTES));
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private readonly closing = new Map<number, () => void>();
  private nextId = 0;
  private files = 0;
  private waiting = 0;
  private dead = false;

  /** Whether the process's worker runs (for tests). */
  static get running(): boolean {
    return CheckpointWorker.current !== undefined;
  }

  /** The process's worker, started if none runs. @throws when worker threads cannot start. */
  static acquire(): CheckpointWorker {
    CheckpointWorker.current ??= new CheckpointWorker();
    return CheckpointWorker.current;
  }

  private constructor() {
    const { file, execArgv } = workerEntry(workerScript(__dirname, 'checkpoint-worker-main'));
    const workerData: CheckpointWorkerData = { signal: this.signal.buffer };
    this.worker = new Worker(file, { workerData, execArgv });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (message: FromCheckpointWorker) => this.closing.get(message.closed)?.());
    // A failed worker costs speed only: each writer's auto-checkpoint still bounds its WAL.
    this.worker.on('error', () => this.retire());
    void this.exited.then(() => {
      this.dead = true;
      this.retire();
      for (const done of this.closing.values()) done();
    });
    this.worker.unref();
  }

  /** Starts checkpointing `target.file` on the worker; the id is for {@link wake} and {@link remove}. */
  add(target: CheckpointTarget): number {
    const id = ++this.nextId;
    this.files++;
    this.post({ add: { id, ...target } });
    this.wake();
    return id;
  }

  /** Lets the worker look at its files' WALs. */
  wake(): void {
    Atomics.add(this.signal, WAKE_SLOT, 1);
    Atomics.notify(this.signal, WAKE_SLOT);
  }

  /** Resolves once the worker has closed its connection to the file (a running checkpoint finishes first); stops the worker with its last file. */
  async remove(id: number): Promise<void> {
    if (this.dead) return;
    const closed = new Promise<void>((resolve) => this.closing.set(id, resolve));
    // Referenced while awaited (it must not keep a process alive otherwise).
    if (this.waiting++ === 0) this.worker.ref();
    this.post({ remove: id });
    this.wake();
    await closed;
    this.closing.delete(id);
    if (--this.files === 0) await this.stop();
    if (--this.waiting === 0) this.worker.unref();
  }

  private post(message: ToCheckpointWorker): void {
    this.worker.postMessage(message);
  }

  private async stop(): Promise<void> {
    this.retire();
    Atomics.store(this.signal, STOP_SLOT, 1);
    this.wake();
    await this.exited;
  }

  /** Later files start a new worker. */
  private retire(): void {
    if (CheckpointWorker.current === this) CheckpointWorker.current = undefined;
  }
}
