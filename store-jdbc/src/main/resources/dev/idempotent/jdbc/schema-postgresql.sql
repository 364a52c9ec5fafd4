-- Idempotency records for dev.idempotent.jdbc.JdbcIdempotencyStore on PostgreSQL 9.5+: format version 1.
-- Run once (or build the store with createTable(true) / idempotent.jdbc.create-table=true).
-- For another table name, replace idempotency_record everywhere below.
-- idempotency_record_meta: the format version of the three tables; a store refuses tables of another version.
-- idempotency_record_scope: each scope's text once, under its id (the first 64 bits of the SHA-256 of its UTF-8
-- bytes, signed); refreshed_at: when a store last said it writes records of the scope (at most hourly). The purge
-- deletes scope rows without records that have gone unrefreshed for a day.
-- idempotency_record: one row per record. idem_key: at most 255 characters (longer keys and scopes arrive as
-- sha256 digests). owner: the claim's owner token while in progress, NULL once completed. outcome: the encoded
-- outcome once completed, NULL while in progress. expires_at: lease end while in progress, retention end once
-- completed (database clock).
-- Columns in this order, widest first, leave no alignment padding.
-- The expiry index is by the second: rows that expire in the same second share one deduplicated entry.
-- Read the records with their scopes: SELECT s.scope, r.* FROM idempotency_record r
--   LEFT JOIN idempotency_record_scope s USING (scope_id).
CREATE TABLE IF NOT EXISTS idempotency_record_meta (
  format_version INTEGER NOT NULL,
  CONSTRAINT idempotency_record_meta_pk PRIMARY KEY (format_version)
);
-- The version before the other tables: whoever finds the record table finds its version too.
INSERT INTO idempotency_record_meta (format_version)
  SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM idempotency_record_meta)
  ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS idempotency_record_scope (
  scope_id     BIGINT       NOT NULL,
  refreshed_at TIMESTAMPTZ  NOT NULL,
  scope        VARCHAR(255) NOT NULL,
  CONSTRAINT idempotency_record_scope_pk PRIMARY KEY (scope_id)
);
CREATE TABLE IF NOT EXISTS idempotency_record (
  expires_at  TIMESTAMPTZ  NOT NULL,
  scope_id    BIGINT       NOT NULL,
  idem_key    VARCHAR(255) NOT NULL,
  owner       VARCHAR(255),
  fingerprint VARCHAR(255),
  outcome     BYTEA,
  CONSTRAINT idempotency_record_pk PRIMARY KEY (scope_id, idem_key)
);
CREATE INDEX IF NOT EXISTS idempotency_record_expiry_idx
  ON idempotency_record (date_trunc('second', expires_at AT TIME ZONE 'UTC'));
