import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { type ApplicationProperties, type QueueCounts } from '../message-bus';
import { BulkInsert } from './bulk-insert';
import { mergeProps, type ContentRow, type EncodedMessage, type StateRow } from './message-codec';
import type { QueueInfo } from './queue-catalog';
import { readProps, rowDefect, UNREADABLE_REASON } from './row-defects';
import { prepareStatements, type CandidateRow, type Statements } from './store-statements';

/** Reasons and descriptions Service Bus itself uses, so that rules written for Azure match here. */
const MAX_DELIVERY_REASON = 'MaxDeliveryCountExceeded';
const TTL_EXPIRED_REASON = 'TTLExpiredException';
const TTL_EXPIRED_DESCRIPTION = 'The message expired and was dead lettered.';
/** Contents of completed messages are deleted once this many have gathered (or on close). */
const CONTENTS_DROP_BATCH = 1000;
const maxDeliveryDescription = (max: number) => `Message could not be consumed after ${max} delivery attempts.`;

/** A lock this store handed out: the message's sequence number and the delivery's token. */
export interface LockRef {
  seq: number;
  token: string;
}

export interface StoredMessage {
  state: StateRow;
  content: ContentRow;
}

/**
 * Lock tokens: a random prefix per store and a counter. Unique across processes and restarts
 * (72 random bits), and short, which keeps the state rows (rewritten on every delivery) small.
 */
class LockTokens {
  private readonly prefix = randomBytes(9).toString('base64url');
  private counter = 0;
  next(): string {
    return `${this.prefix}${(this.counter++).toString(36)}`;
  }
}

export type AbandonOutcome = 'abandoned' | 'deadLettered' | 'lockLost';
export type DeadLetterOutcome = 'deadLettered' | 'alreadyDead' | 'lockLost';

/**
 * The bus's operations on the database. Every write method runs inside the caller's
 * transaction and checks the lock before it writes (see TransactionBatcher). `now` is epoch ms
 * from the injected clock.
 */
export class MessageStore {
  private readonly s: Statements;
  private readonly tokens = new LockTokens();
  /** Completed messages whose contents rows are still to be deleted. */
  private completedSeqs: number[] = [];

  private readonly states: BulkInsert;
  private readonly contents: BulkInsert;

  constructor(db: Database.Database) {
    this.s = prepareStatements(db);
    this.states = new BulkInsert(db, 'messages', ['seq', 'queue_id', 'avail_at', 'expires_at', 'scheduled_at', 'props']);
    this.contents = new BulkInsert(db, 'contents', ['seq', 'message_id', 'enqueued_at', 'subject', 'correlation_id', 'content_type', 'body']);
  }

  /**
   * Stores the messages that `isNew` accepts (duplicate detection); returns how many. Inside the
   * write transaction, so the sequence numbers after the last one ever used (`sqlite_sequence`
   * of AUTOINCREMENT) are this call's to assign, which lets the rows go in bulk.
   */
  insert(queue: QueueInfo, messages: readonly EncodedMessage[], now: number, isNew: (messageId: string) => boolean): number {
    const o = queue.options;
    const states: unknown[] = [];
    const contents: unknown[] = [];
    let seq = this.s.lastSeq.get() ?? 0;
    for (const m of messages) {
      if (!isNew(m.messageId)) continue;
      const enqueuedAt = Math.max(now, m.scheduledAt ?? now);
      const ttl = Math.min(m.timeToLiveMs ?? o.defaultTimeToLiveMs, o.defaultTimeToLiveMs);
      seq++;
      states.push(seq, queue.id, enqueuedAt, enqueuedAt + ttl, m.scheduledAt ?? null, m.props);
      contents.push(seq, m.messageId, enqueuedAt, m.subject, m.correlationId, m.contentType, m.body);
    }
    this.states.run(states);
    this.contents.run(contents);
    return contents.length / 7;
  }

  /**
   * Locks up to `max` receivable messages, oldest first. On the way, dead-letters (or drops)
   * expired messages and messages whose deliveries reached the queue's maximum (a lock that
   * expired on the last allowed delivery), as the broker does. Each step seeks past the last
   * sequence number seen, so a claim of k messages reads k index entries, not k².
   */
  claim(queue: QueueInfo, dead: boolean, max: number, now: number): StoredMessage[] {
    const o = queue.options;
    const until = now + o.lockDurationMs;
    const deadFlag = dead ? 1 : 0;
    // The dead-letter subqueue neither expires nor counts deliveries against a maximum.
    const expiresAfter = dead ? -Number.MAX_SAFE_INTEGER : now;
    const maxCount = dead ? Number.MAX_SAFE_INTEGER : o.maxDeliveryCount;
    const claimed: StoredMessage[] = [];
    let after = 0;
    while (claimed.length < max) {
      const row = this.s.candidate.get(queue.id, deadFlag, after, now);
      if (row === undefined) break;
      const [seq, rowDead, expiresAt, scheduledAt, deliveryCount, props, dlReason, dlDescription] = row;
      after = seq;
      if (expiresAt <= expiresAfter || deliveryCount >= maxCount) {
        this.retire(queue, seq, expiresAt, now);
        continue;
      }
      const damage = rowDefect({ props, hasContents: row[8] !== null, enqueuedAt: row[9], body: row[13] });
      if (damage && !dead) {
        // Alone, in this transaction: the messages claimed with it go on (row-defects.ts).
        this.s.toDeadLetter.run(now, UNREADABLE_REASON, `message ${seq}: ${damage.defect}`, JSON.stringify(readProps(props).props), seq);
        continue;
      }
      // Already dead-lettered: handed out as far as readable; without contents there is nothing to hand out.
      if (damage?.lost) continue;
      const content = contentOf(row);
      const token = this.tokens.next();
      this.s.lock.run(token, until, until, seq);
      const state: StateRow = {
        seq,
        dead: rowDead,
        expires_at: expiresAt,
        scheduled_at: scheduledAt,
        lock_token: token,
        locked_until: until,
        delivery_count: deliveryCount + 1,
        props,
        dl_reason: dlReason,
        dl_description: dlDescription,
      };
      claimed.push({ state, content });
    }
    return claimed;
  }

  /** Whether a receive could find something now (a read, no lock taken). */
  anyAvailable(queue: QueueInfo, dead: boolean, now: number): boolean {
    return this.s.anyAvailable.get(queue.id, dead ? 1 : 0, now) !== undefined;
  }

  /** Deletes the message's state; its contents row is left for {@link dropContents}. */
  complete(ref: LockRef, now: number): boolean {
    return this.s.complete.run(ref.seq, ref.token, now).changes === 1;
  }

  /**
   * Notes a completion that has committed; returns the sequence numbers whose contents are now
   * due for {@link dropContents} (every 1000 completions, or all of them when called without one).
   */
  completed(seq?: number): number[] | undefined {
    if (seq !== undefined) this.completedSeqs.push(seq);
    if (seq !== undefined && this.completedSeqs.length < CONTENTS_DROP_BATCH) return undefined;
    const due = this.completedSeqs;
    this.completedSeqs = [];
    return due;
  }

  /**
   * Deletes contents rows of completed messages, in one go so that whole pages are freed
   * instead of rewritten. Only pass sequence numbers whose state deletion has committed.
   */
  dropContents(seqs: readonly number[]): void {
    const sorted = [...seqs].sort((a, b) => a - b);
    // Runs of consecutive sequence numbers are exactly the listed messages: one range delete each.
    for (let i = 0; i < sorted.length; ) {
      let j = i;
      while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
      if (i === j) this.s.dropContent.run(sorted[i]);
      else this.s.dropContentRange.run(sorted[i], sorted[j]);
      i = j + 1;
    }
  }

  /** Deletes contents left behind by a process that stopped before dropping them. */
  dropOrphanContents(): void {
    this.s.dropOrphanContents.run();
  }

  /** Releases the lock, or dead-letters when the last allowed delivery is abandoned. */
  abandon(queue: QueueInfo, ref: LockRef, now: number, modify?: ApplicationProperties): AbandonOutcome {
    const row = this.s.locked.get(ref.seq, ref.token, now);
    if (!row) return 'lockLost';
    const props = mergeProps(row.props, modify);
    const max = queue.options.maxDeliveryCount;
    if (!row.dead && row.delivery_count >= max) {
      this.s.toDeadLetter.run(now, MAX_DELIVERY_REASON, maxDeliveryDescription(max), props, ref.seq);
      return 'deadLettered';
    }
    this.s.unlock.run(now, props, ref.seq);
    return 'abandoned';
  }

  deadLetter(ref: LockRef, now: number, reason: string, description?: string, modify?: ApplicationProperties): DeadLetterOutcome {
    const row = this.s.locked.get(ref.seq, ref.token, now);
    if (!row) return 'lockLost';
    if (row.dead) return 'alreadyDead';
    this.s.toDeadLetter.run(now, reason, description ?? null, mergeProps(row.props, modify), ref.seq);
    return 'deadLettered';
  }

  /** The new lock expiry, or undefined when the lock is lost. */
  renew(queue: QueueInfo, ref: LockRef, now: number): number | undefined {
    const until = now + queue.options.lockDurationMs;
    return this.s.renew.run(until, until, ref.seq, ref.token, now).changes === 1 ? until : undefined;
  }

  peek(queue: QueueInfo, dead: boolean, fromSeq: number, max: number): StoredMessage[] {
    return this.s.peek.all(queue.id, dead ? 1 : 0, fromSeq, max).map((row) => ({ state: row, content: row }));
  }

  /** Counts after moving every expired, unlocked message out (the broker's sweep, done eagerly). */
  counts(queue: QueueInfo, now: number): QueueCounts {
    if (queue.options.deadLetteringOnMessageExpiration) {
      this.s.expireAll.run(now, TTL_EXPIRED_REASON, TTL_EXPIRED_DESCRIPTION, queue.id, now, now);
    } else {
      this.s.dropExpiredContents.run(queue.id, now, now);
      this.s.dropExpired.run(queue.id, now, now);
    }
    return this.s.counts.get({ now, queue: queue.id }) ?? { active: 0, scheduled: 0, deadLetter: 0 };
  }

  /** Moves out an available message that expired or used up its deliveries. */
  private retire(queue: QueueInfo, seq: number, expiresAt: number, now: number): void {
    const o = queue.options;
    if (expiresAt > now) {
      this.s.toDeadLetter.run(now, MAX_DELIVERY_REASON, maxDeliveryDescription(o.maxDeliveryCount), null, seq);
    } else if (o.deadLetteringOnMessageExpiration) {
      this.s.toDeadLetter.run(now, TTL_EXPIRED_REASON, TTL_EXPIRED_DESCRIPTION, null, seq);
    } else {
      this.s.drop.run(seq);
      this.s.dropContent.run(seq);
    }
  }
}

/** The contents half of a candidate row (checked by `rowDefect` before). */
function contentOf(row: CandidateRow): ContentRow {
  const [, , , , , , , , messageId, enqueuedAt, subject, correlationId, contentType, body] = row;
  return { message_id: messageId!, enqueued_at: enqueuedAt!, subject, correlation_id: correlationId, content_type: contentType, body: body! };
}
