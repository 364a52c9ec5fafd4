-- Idempotency records for dev.idempotent.jdbc.JdbcIdempotencyStore on H2 2.x: format version 1.
-- Run once (or build the store with createTable(true) / idempotent.jdbc.create-table=true).
-- For another table name, replace idempotency_record everywhere below.
-- idempotency_record_meta: the format version of the three tables; a store refuses tables of another version.
-- idempotency_record_scope: each scope's text once, under its id (the first 64 bits of the SHA-256 of its UTF-8
-- bytes, signed); refreshed_at: when a store last said it writes records of the scope (at most hourly).
-- idempotency_record: owner while in progress, NULL once completed; outcome once completed, NULL in progress.
CREATE TABLE IF NOT EXISTS idempotency_record_meta (
  format_version INTEGER NOT NULL,
  CONSTRAINT idempotency_record_meta_pk PRIMARY KEY (format_version)
);
-- The version before the other tables: whoever finds the record table finds its version too.
INSERT INTO idempotency_record_meta (format_version)
  SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM idempotency_record_meta);
CREATE TABLE IF NOT EXISTS idempotency_record_scope (
  scope_id     BIGINT       NOT NULL,
  scope        VARCHAR(255) NOT NULL,
  refreshed_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  CONSTRAINT idempotency_record_scope_pk PRIMARY KEY (scope_id)
);
CREATE TABLE IF NOT EXISTS idempotency_record (
  scope_id    BIGINT       NOT NULL,
  idem_key    VARCHAR(255) NOT NULL,
  owner       VARCHAR(255),
  fingerprint VARCHAR(255),
  outcome     BINARY LARGE OBJECT,
  expires_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  CONSTRAINT idempotency_record_pk PRIMARY KEY (scope_id, idem_key)
);
CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);
