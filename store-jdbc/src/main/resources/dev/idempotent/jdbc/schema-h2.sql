-- Idempotency records for dev.idempotent.jdbc.JdbcIdempotencyStore on H2 2.x.
-- Run once (or build the store with createTable(true) / idempotent.jdbc.create-table=true).
-- For another table name, replace idempotency_record everywhere below.
-- idempotency_record_scope: each scope's text once; scope_id is the first 64 bits of its SHA-256, signed.
-- status: 1 in progress, 2 completed.
CREATE TABLE IF NOT EXISTS idempotency_record_scope (
  scope_id    BIGINT       NOT NULL,
  scope       VARCHAR(255) NOT NULL,
  CONSTRAINT idempotency_record_scope_pk PRIMARY KEY (scope_id)
);
CREATE TABLE IF NOT EXISTS idempotency_record (
  scope_id    BIGINT       NOT NULL,
  idem_key    VARCHAR(255) NOT NULL,
  status      SMALLINT     NOT NULL,
  owner       VARCHAR(255),
  fingerprint VARCHAR(255),
  outcome     BINARY LARGE OBJECT,
  expires_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  CONSTRAINT idempotency_record_pk PRIMARY KEY (scope_id, idem_key)
);
CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);
