import type Database from 'better-sqlite3';
import type { QueueCounts } from '../message-bus';
import type { ContentRow, StateRow } from './message-codec';

type Text = string | null;

/**
 * A receivable message's state (before locking) and contents, from one read; the contents
 * columns are null when its contents row is missing.
 */
export type CandidateRow = [
  seq: number,
  dead: number,
  expiresAt: number,
  scheduledAt: number | null,
  deliveryCount: number,
  props: Text,
  dlReason: Text,
  dlDescription: Text,
  messageId: Text,
  enqueuedAt: number | null,
  subject: Text,
  correlationId: Text,
  contentType: Text,
  body: Buffer | null,
];

/**
 * Every SQL statement of the message store, prepared once per connection. Limits are literals
 * on purpose: with a bound `LIMIT ?` SQLite 3.53 scanned the FIFO index several times slower.
 */
export function prepareStatements(db: Database.Database) {
  return {
    // The last sequence number ever used (AUTOINCREMENT keeps it here, beyond deleted rows).
    lastSeq: db.prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'messages'").pluck(),
    dropContent: db.prepare<[number]>('DELETE FROM contents WHERE seq = ?'),
    dropContentRange: db.prepare<[number, number]>('DELETE FROM contents WHERE seq BETWEEN ? AND ?'),
    dropOrphanContents: db.prepare<[]>('DELETE FROM contents WHERE seq NOT IN (SELECT seq FROM messages)'),
    // The next receivable message with its contents, as an array (`raw`: no object with 14 keys
    // per message). LEFT JOIN: a missing contents row is damage, dead-lettered alone (row-defects.ts). Read,
    // then locked by primary key: measured 30% cheaper than one UPDATE … WHERE seq = (subquery)
    // RETURNING plus a second read for the contents.
    candidate: db
      .prepare<[number, number, number, number], CandidateRow>(
        `SELECT m.seq, m.dead, m.expires_at, m.scheduled_at, m.delivery_count, m.props, m.dl_reason, m.dl_description,
                c.message_id, c.enqueued_at, c.subject, c.correlation_id, c.content_type, c.body
         FROM messages m LEFT JOIN contents c ON c.seq = m.seq
         WHERE m.queue_id = ? AND m.dead = ? AND m.seq > ? AND m.avail_at <= ?
         ORDER BY m.seq LIMIT 1`,
      )
      .raw(),
    lock: db.prepare<[string, number, number, number]>(
      'UPDATE messages SET lock_token = ?, locked_until = ?, avail_at = ?, delivery_count = delivery_count + 1 WHERE seq = ?',
    ),
    anyAvailable: db.prepare<[number, number, number], { one: number }>(
      'SELECT 1 AS one FROM messages WHERE queue_id = ? AND dead = ? AND avail_at <= ? LIMIT 1',
    ),
    toDeadLetter: db.prepare<[number, string, Text, Text, number]>(
      `UPDATE messages SET dead = 1, lock_token = NULL, locked_until = NULL, avail_at = ?,
         dl_reason = ?, dl_description = ?, props = coalesce(?, props) WHERE seq = ?`,
    ),
    expireAll: db.prepare<[number, string, string, number, number, number]>(
      `UPDATE messages SET dead = 1, lock_token = NULL, locked_until = NULL, avail_at = ?, dl_reason = ?,
         dl_description = ? WHERE queue_id = ? AND dead = 0 AND expires_at <= ? AND avail_at <= ?`,
    ),
    dropExpiredContents: db.prepare<[number, number, number]>(
      `DELETE FROM contents WHERE seq IN
         (SELECT seq FROM messages WHERE queue_id = ? AND dead = 0 AND expires_at <= ? AND avail_at <= ?)`,
    ),
    dropExpired: db.prepare<[number, number, number]>(
      'DELETE FROM messages WHERE queue_id = ? AND dead = 0 AND expires_at <= ? AND avail_at <= ?',
    ),
    drop: db.prepare<[number]>('DELETE FROM messages WHERE seq = ?'),
    complete: db.prepare<[number, string, number]>('DELETE FROM messages WHERE seq = ? AND lock_token = ? AND locked_until > ?'),
    locked: db.prepare<[number, string, number], { delivery_count: number; dead: number; props: Text }>(
      'SELECT delivery_count, dead, props FROM messages WHERE seq = ? AND lock_token = ? AND locked_until > ?',
    ),
    unlock: db.prepare<[number, Text, number]>(
      'UPDATE messages SET lock_token = NULL, locked_until = NULL, avail_at = ?, props = ? WHERE seq = ?',
    ),
    renew: db.prepare<[number, number, number, string, number]>(
      'UPDATE messages SET locked_until = ?, avail_at = ? WHERE seq = ? AND lock_token = ? AND locked_until > ?',
    ),
    peek: db.prepare<[number, number, number, number], StateRow & ContentRow>(
      `SELECT * FROM messages JOIN contents USING (seq)
       WHERE queue_id = ? AND dead = ? AND seq >= ? ORDER BY seq LIMIT ?`,
    ),
    counts: db.prepare<[{ now: number; queue: number }], QueueCounts>(
      `SELECT coalesce(sum(dead = 0 AND (scheduled_at IS NULL OR scheduled_at <= @now)), 0) AS active,
              coalesce(sum(dead = 0 AND scheduled_at > @now), 0) AS scheduled,
              coalesce(sum(dead = 1), 0) AS deadLetter
       FROM messages WHERE queue_id = @queue`,
    ),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
