import type Database from 'better-sqlite3';
import type { QueueCounts } from '../message-bus';
import type { ContentRow, StateRow } from './message-codec';

type Text = string | null;

/**
 * Every SQL statement of the message store, prepared once per connection. Limits are literals
 * on purpose: with a bound `LIMIT ?` SQLite 3.53 scanned the FIFO index several times slower.
 */
export function prepareStatements(db: Database.Database) {
  return {
    insertState: db.prepare<[number, number, number, number | null, Text]>(
      'INSERT INTO messages (queue_id, avail_at, expires_at, scheduled_at, props) VALUES (?, ?, ?, ?, ?)',
    ),
    insertContent: db.prepare<[number | bigint, string, number, Text, Text, Text, Buffer]>(
      `INSERT INTO contents (seq, message_id, enqueued_at, subject, correlation_id, content_type, body)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    content: db.prepare<[number], ContentRow>(
      'SELECT message_id, enqueued_at, subject, correlation_id, content_type, body FROM contents WHERE seq = ?',
    ),
    dropContent: db.prepare<[number]>('DELETE FROM contents WHERE seq = ?'),
    dropContentRange: db.prepare<[number, number]>('DELETE FROM contents WHERE seq BETWEEN ? AND ?'),
    dropOrphanContents: db.prepare<[]>('DELETE FROM contents WHERE seq NOT IN (SELECT seq FROM messages)'),
    next: db
      .prepare<[number, number, number, number], number>(
        `SELECT seq FROM messages WHERE queue_id = ? AND dead = ? AND seq > ? AND avail_at <= ?
         ORDER BY seq LIMIT 1`,
      )
      .pluck(),
    anyAvailable: db.prepare<[number, number, number], { one: number }>(
      'SELECT 1 AS one FROM messages WHERE queue_id = ? AND dead = ? AND avail_at <= ? LIMIT 1',
    ),
    // The next receivable message, locked in one statement; no row when it must be retired
    // (expired, or out of deliveries) or when there is none: `next` tells which.
    lockNext: db.prepare<[{ token: string; until: number; queue: number; dead: number; after: number; now: number; expiresAfter: number; maxCount: number }], StateRow>(
      `UPDATE messages SET lock_token = @token, locked_until = @until, avail_at = @until, delivery_count = delivery_count + 1
       WHERE seq = (SELECT seq FROM messages WHERE queue_id = @queue AND dead = @dead AND seq > @after AND avail_at <= @now
                    ORDER BY seq LIMIT 1)
         AND expires_at > @expiresAfter AND delivery_count < @maxCount
       RETURNING *`,
    ),
    expiresAt: db.prepare<[number], number>('SELECT expires_at FROM messages WHERE seq = ?').pluck(),
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
