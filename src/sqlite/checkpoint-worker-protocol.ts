/** What the checkpoint worker (`checkpoint-worker-main.ts`) and its starter (`checkpoint-worker.ts`) exchange. */

/** What the worker needs to checkpoint one file. */
export interface CheckpointTarget {
  file: string;
  /** Frames waiting from which it checkpoints. */
  frames: number;
  /** Frames from which it checkpoints whatever waits (the writer's auto-checkpoint is near). */
  nearAutoFrames: number;
}

/** The worker's `workerData`. */
export interface CheckpointWorkerData {
  /** Two Int32 slots: {@link WAKE_SLOT} and {@link STOP_SLOT}. */
  signal: SharedArrayBuffer;
}

/** Counter slot of the signal: bumped (and notified) to wake the worker. */
export const WAKE_SLOT = 0;
/** Flag slot of the signal: non-zero once the worker is to close its files and exit. */
export const STOP_SLOT = 1;
/** Bytes of the signal buffer: two Int32 slots. */
export const SIGNAL_BYTES = 8;

/** To the worker, read with `receiveMessageOnPort` after a wake-up. */
export type ToCheckpointWorker = { add: CheckpointTarget & { id: number } } | { remove: number };

/** From the worker: the connection to file `closed` is closed. */
export interface FromCheckpointWorker {
  closed: number;
}
