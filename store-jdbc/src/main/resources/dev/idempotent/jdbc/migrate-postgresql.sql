-- Moves a table of the earlier record layout (scope text in every row, created by the earlier
-- schema-postgresql.sql) into the compact layout of schema-postgresql.sql, keeping its live records.
-- Run it in one transaction: psql -v ON_ERROR_STOP=1 --single-transaction -f migrate-postgresql.sql
-- Store calls wait for the table while it runs; running stores find the new layout on their next call.
-- The earlier table stays as idempotency_record_earlier: drop it once satisfied.
-- For another table name, replace idempotency_record everywhere below. Needs PostgreSQL 11+ (sha256).
LOCK TABLE idempotency_record IN ACCESS EXCLUSIVE MODE;
ALTER TABLE idempotency_record RENAME TO idempotency_record_earlier;
ALTER INDEX IF EXISTS idempotency_record_pk RENAME TO idempotency_record_earlier_pk;
ALTER INDEX IF EXISTS idempotency_record_expires_at_idx RENAME TO idempotency_record_earlier_expires_at_idx;
CREATE TABLE IF NOT EXISTS idempotency_record_scope (
  scope_id    BIGINT       NOT NULL,
  scope       VARCHAR(255) NOT NULL,
  CONSTRAINT idempotency_record_scope_pk PRIMARY KEY (scope_id)
);
CREATE TABLE idempotency_record (
  scope_id    BIGINT       NOT NULL,
  expires_at  TIMESTAMPTZ  NOT NULL,
  status      SMALLINT     NOT NULL,
  idem_key    VARCHAR(255) NOT NULL,
  owner       VARCHAR(255),
  fingerprint VARCHAR(255),
  outcome     BYTEA,
  CONSTRAINT idempotency_record_pk PRIMARY KEY (scope_id, idem_key)
);
INSERT INTO idempotency_record_scope (scope_id, scope)
  SELECT ('x' || substr(encode(sha256(convert_to(scope, 'UTF8')), 'hex'), 1, 16))::bit(64)::bigint, scope
  FROM (SELECT DISTINCT scope FROM idempotency_record_earlier) s
  ON CONFLICT (scope_id) DO NOTHING;
INSERT INTO idempotency_record (scope_id, expires_at, status, idem_key, owner, fingerprint, outcome)
  SELECT ('x' || substr(encode(sha256(convert_to(scope, 'UTF8')), 'hex'), 1, 16))::bit(64)::bigint, expires_at,
    CASE status WHEN 'IN_PROGRESS' THEN 1 ELSE 2 END, idem_key, owner, fingerprint, outcome
  FROM idempotency_record_earlier WHERE expires_at > statement_timestamp();
CREATE INDEX idempotency_record_expiry_idx
  ON idempotency_record (date_trunc('second', expires_at AT TIME ZONE 'UTC'));
