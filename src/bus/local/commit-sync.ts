import { type FileSyncer, WalSync } from '../../sqlite/wal-sync';
import { BusError } from '../message-bus';

/**
 * Resolves once every commit made on the bus's connection before the call is on disk.
 * @throws BusError `Unavailable` when the flush failed (see {@link syncFailedError}).
 */
export type CommitSync = () => Promise<void>;

/**
 * The bus's `synchronous: 'FULL'`, off the event loop: undefined (nothing to wait for) with
 * NORMAL, else a {@link WalSync} of the database's `-wal` file.
 *
 * Why not SQLite's own FULL: it fsyncs inside every COMMIT, on the thread that also receives,
 * completes and runs the host, so every caller waits for the disk, also the ones whose write
 * would be harmless to lose. The connection commits with NORMAL instead (the commit reaches the
 * OS, in WAL order) and only the operations that need it wait for a sync of the WAL that started
 * after their COMMIT (TransactionBatcher.durable). Syncing the WAL covers every commit made
 * before: frames are appended in commit order and a checkpoint under NORMAL syncs the WAL
 * before copying it and the database after, so a commit is on disk in one or the other.
 *
 * Which operations wait (the others lose nothing that at-least-once delivery does not redo):
 * - send / sendBatch (also scheduled messages): the caller moves on (advances its watermark,
 *   completes the message it came from) once the call resolves; a lost message is lost for good.
 *   Also when duplicate detection drops every message: the first copy's commit may not be on
 *   disk yet.
 * - deadLetter: the caller gave up on the message for a reason of its own that a redelivery
 *   need not repeat (a target that has recovered since); the reason is what operators act on.
 * - createQueue: a lost declaration makes later calls fail with `QueueNotFound` or find the
 *   old options.
 *
 * Which do not: receive (a lost claim means the message is delivered again, with one delivery
 * fewer counted; the expired or exhausted messages a claim moves to the dead-letter subqueue
 * are moved again by the next claim), complete (the message is redelivered and the idempotent
 * apply absorbs it), abandon (a lost abandon leaves the lock to expire: the same redelivery,
 * later, without the modified properties, which describe a failure the redelivery meets or
 * not anew; the dead-lettering at `maxDeliveryCount` is redone by the next claim), renewLock,
 * counts. Receivers are latency-sensitive and would wait a sync per round trip.
 *
 * A lost write is never out of order: a commit survives only with every commit before it, so a
 * synced send also makes every earlier claim or completion durable.
 */
export function commitSync(file: string, synchronous: 'NORMAL' | 'FULL' | undefined, syncFile?: FileSyncer): CommitSync | undefined {
  if (synchronous !== 'FULL') return undefined;
  const wal = new WalSync(`${file}-wal`, syncFile);
  return async () => {
    try {
      await wal.durable();
    } catch (err) {
      throw syncFailedError(err, file);
    }
  };
}

/**
 * The flush of the WAL failed (`EIO`, `ENOSPC`…): the commit is in the file but maybe not on
 * disk, so the caller cannot know whether its write survives a power loss and must treat it as
 * failed. `Unavailable`, i.e. retryable; a resend with the same `messageId` is dropped as a
 * duplicate of the copy in the file. That copy is only as safe as the next successful sync:
 * after a write error the kernel may have dropped the pages it could not write (Linux marks
 * them clean), so a repeated failure deserves an alert, not just retries.
 */
function syncFailedError(err: unknown, file: string): BusError {
  const message = typeof err === 'object' && err !== null ? (err as { message?: unknown }).message : undefined;
  const detail = typeof message === 'string' ? message : String(err);
  return new BusError(
    'Unavailable',
    `The local bus database ${file} could not flush a commit to disk (synchronous: 'FULL'), so it may not survive a power loss; the call failed and may be retried: ${detail}`,
    { cause: err },
  );
}
