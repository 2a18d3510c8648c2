import type Database from 'better-sqlite3';
import { BusError } from '../message-bus';

/** Bumped on incompatible schema changes; stored in `PRAGMA user_version`. */
const SCHEMA_VERSION = 1;

/*
 * A message is split in two rows. `messages` holds its state, small and rewritten on every
 * delivery, settlement or move between active, scheduled, locked and dead-lettered, so that a
 * claim or a completion writes a few narrow pages instead of the pages holding the bodies.
 * `contents` holds what was sent, written once; a completed message's contents row is deleted
 * later in bulk (see MessageStore), which frees whole pages at once instead of rewriting them.
 *
 * `avail_at` is the single "receivable from" time: the enqueue (or scheduled) time while the
 * message waits, the lock expiry while it is locked. A receive is therefore a seek on the FIFO
 * index, and an expired lock needs no sweeper: the message is simply available again.
 * Sequence numbers come from AUTOINCREMENT, so they are never reused, even after deletes; the
 * same holds for `duplicate_log` ids, which processes use as a replay position (DuplicateIndex).
 */
const DDL = `
CREATE TABLE queues (
  id       INTEGER PRIMARY KEY,
  name     TEXT NOT NULL UNIQUE,
  options  TEXT NOT NULL
);
CREATE TABLE messages (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  queue_id       INTEGER NOT NULL,
  dead           INTEGER NOT NULL DEFAULT 0,
  avail_at       INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  scheduled_at   INTEGER,
  lock_token     TEXT,
  locked_until   INTEGER,
  delivery_count INTEGER NOT NULL DEFAULT 0,
  props          TEXT,
  dl_reason      TEXT,
  dl_description TEXT
);
CREATE INDEX messages_fifo ON messages (queue_id, dead, seq, avail_at);
CREATE TABLE contents (
  seq            INTEGER PRIMARY KEY,
  message_id     TEXT NOT NULL,
  enqueued_at    INTEGER NOT NULL,
  subject        TEXT,
  correlation_id TEXT,
  content_type   TEXT,
  body           BLOB NOT NULL
);
CREATE TABLE duplicate_log (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  queue_id   INTEGER NOT NULL,
  message_id TEXT NOT NULL,
  until      INTEGER NOT NULL
);
`;

/**
 * Creates the schema in a fresh file, accepts the current one, refuses a newer one.
 * Runs in one immediate transaction so that two processes opening a new file at once agree.
 */
export function ensureSchema(db: Database.Database, file: string): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    if (version > SCHEMA_VERSION) {
      throw new BusError(
        'Corrupt',
        `The local bus database ${file} has schema version ${version}; this Highwater supports up to ${SCHEMA_VERSION}`,
      );
    }
    const foreign = db
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .get() as { n: number };
    if (foreign.n > 0) {
      throw new BusError('Corrupt', `The local bus database ${file} holds tables of another application`);
    }
    db.exec(DDL);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
