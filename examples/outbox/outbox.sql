-- The shop's outbox (SQLite). The application writes a row in the same transaction as the change,
-- after the change itself (so that the ids of one customer's rows follow its commits):
--   BEGIN;
--   UPDATE customer SET city = 'Hamburg' WHERE id = 42;
--   INSERT INTO outbox (aggregate_type, aggregate_key, action, payload)
--     VALUES ('customer', '42', 'update', '{"id": 42, "name": "Ada", "city": "Hamburg"}');
--   COMMIT;
-- claimed_at, processed_at and dead_reason belong to Highwater; the application leaves them NULL.
CREATE TABLE outbox (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  aggregate_type TEXT NOT NULL,
  aggregate_key  TEXT NOT NULL,
  action         TEXT NOT NULL,          -- insert | update | upsert | delete
  payload        TEXT,                   -- JSON object; may be NULL for a delete
  created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  claimed_at     TEXT,
  processed_at   TEXT,
  dead_reason    TEXT
);
-- The claim reads the free rows in id order; the retention finds processed rows by time.
CREATE INDEX outbox_free ON outbox (processed_at, dead_reason, id);
CREATE INDEX outbox_processed ON outbox (processed_at);

-- PostgreSQL: the same columns as
--   id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, aggregate_type text NOT NULL,
--   aggregate_key text NOT NULL, action text NOT NULL, payload jsonb,
--   created_at timestamptz NOT NULL DEFAULT now(), claimed_at timestamptz,
--   processed_at timestamptz, dead_reason text
-- with a partial index for the claim:
--   CREATE INDEX outbox_free ON outbox (id) WHERE processed_at IS NULL AND dead_reason IS NULL;

-- The ERP's customers (target).
-- CREATE TABLE customers (shop_id INTEGER PRIMARY KEY, name TEXT, city TEXT, shop_version INTEGER);
