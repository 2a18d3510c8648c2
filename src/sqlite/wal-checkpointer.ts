import { CheckpointWorker } from './checkpoint-worker';

/** Estimated bytes written between two wake-ups of the worker. */
const WAKE_AFTER_BYTES = 1 << 20;
/** Estimated bytes written before the file is handed to the worker: it has nothing to do before 16 MiB. */
const START_AFTER_BYTES = 8 << 20;
/**
 * Frames (pages) waiting in the WAL from which the worker checkpoints: 16 MiB. 4 MiB was no
 * faster for long runs and slower for short ones (10k detected changes: the worker's copying
 * competed for the CPU with work that would never have needed a checkpoint).
 */
const CHECKPOINT_FRAMES = 4096;

/**
 * Runs one SQLite file's WAL checkpoints on the process's checkpoint worker thread
 * ({@link CheckpointWorker}), so that the writer's thread never waits for one.
 *
 * A checkpoint copies the WAL's pages into the database file and fsyncs both (with
 * `synchronous=NORMAL` the only fsyncs there are besides the WAL syncs of `synchronous: FULL`).
 * SQLite runs it inside the COMMIT that crosses the auto-checkpoint bound, on the event loop: on
 * the bus's thread each one of 16 MiB took ~40 ms, a fifth of the bus benchmark's time, and a
 * SQLite target's inline checkpoints cost the end-to-end benchmark ~15%. On another connection in
 * the worker it overlaps with the writer's own work. What is durable when does not change: a
 * commit is in the WAL when its call resolves (synced there where the writer waits for that),
 * whichever connection copies it into the database later.
 *
 * The writer only adds up an estimate of what it wrote and wakes the worker every
 * {@link WAKE_AFTER_BYTES}; the worker reads the exact number of frames waiting from the WAL
 * index (`-shm`, layout in https://www.sqlite.org/walformat.html) and checkpoints (PASSIVE:
 * blocks neither writers nor readers) from {@link CHECKPOINT_FRAMES} on, and from a few dozen
 * once the WAL nears the writer's own auto-checkpoint (which stays as the bound on the WAL and
 * resets it), so that one finds little to copy. The file is handed over once
 * {@link START_AFTER_BYTES} were written, so a writer that writes little (most tests, short runs)
 * never starts the worker.
 */
export class WalCheckpointer {
  private worker: CheckpointWorker | undefined;
  private id = 0;
  private written = 0;
  private total = 0;
  private stopped = false;

  /**
   * @param file the database file (WAL mode).
   * @param autoCheckpointPages the writer's `wal_autocheckpoint`.
   */
  constructor(
    private readonly file: string,
    private readonly autoCheckpointPages: number,
  ) {}

  /** After a commit: about `bytes` were written to the WAL. */
  wrote(bytes: number): void {
    this.written += bytes;
    if (this.written < WAKE_AFTER_BYTES || this.stopped) return;
    this.total += this.written;
    this.written = 0;
    if (this.worker === undefined && this.total < START_AFTER_BYTES) return;
    if (this.worker === undefined) {
      try {
        this.worker = CheckpointWorker.acquire();
      } catch {
        // No worker threads here: SQLite's auto-checkpoint does the work, as it did before.
        this.stopped = true;
        return;
      }
      this.id = this.worker.add({ file: this.file, frames: CHECKPOINT_FRAMES, nearAutoFrames: (this.autoCheckpointPages * 3) / 4 });
      return;
    }
    this.worker.wake();
  }

  /** Stops checkpointing; resolves once the worker's connection to the file is closed (a running checkpoint finishes first). */
  async close(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.remove(this.id);
  }
}
