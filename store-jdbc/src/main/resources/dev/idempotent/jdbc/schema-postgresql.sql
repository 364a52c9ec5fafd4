-- Idempotency records for dev.idempotent.jdbc.JdbcIdempotencyStore on PostgreSQL 9.5+.
-- Run once (or build the store with createTable(true) / idempotent.jdbc.create-table=true).
-- For another table name, replace idempotency_record everywhere below.
-- idempotency_record_scope: each scope's text once; scope_id is the first 32 bits of its SHA-256, signed.
-- (A table created with scope_id BIGINT, as by earlier versions, keeps its 64-bit ids: the store reads the
-- column's type.) Two scopes with the same id are refused on their first call, naming both: rename one.
-- Read the records with their scopes: SELECT s.scope, r.* FROM idempotency_record r
--   LEFT JOIN idempotency_record_scope s USING (scope_id).
-- idem_key: at most 255 characters (longer keys and scopes arrive as sha256 digests).
-- status: 1 in progress, 2 completed.
-- expires_at: lease end while in progress, retention end once completed (database clock).
-- Columns in this order, widest first, leave no alignment padding: a completed record's row is 88 bytes.
-- The expiry index is by the second: rows that expire in the same second share one deduplicated entry.
CREATE TABLE IF NOT EXISTS idempotency_record_scope (
  scope_id    INTEGER      NOT NULL,
  scope       VARCHAR(255) NOT NULL,
  CONSTRAINT idempotency_record_scope_pk PRIMARY KEY (scope_id)
);
CREATE TABLE IF NOT EXISTS idempotency_record (
  expires_at  TIMESTAMPTZ  NOT NULL,
  scope_id    INTEGER      NOT NULL,
  status      SMALLINT     NOT NULL,
  idem_key    VARCHAR(255) NOT NULL,
  owner       VARCHAR(255),
  fingerprint VARCHAR(255),
  outcome     BYTEA,
  CONSTRAINT idempotency_record_pk PRIMARY KEY (scope_id, idem_key)
);
CREATE INDEX IF NOT EXISTS idempotency_record_expiry_idx
  ON idempotency_record (date_trunc('second', expires_at AT TIME ZONE 'UTC'));
