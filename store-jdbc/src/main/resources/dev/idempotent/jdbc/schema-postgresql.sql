-- Idempotency records for dev.idempotent.jdbc.JdbcIdempotencyStore on PostgreSQL 9.5+.
-- Run once (or build the store with createTable(true) / idempotent.jdbc.create-table=true).
-- For another table name, replace idempotency_record everywhere below.
-- scope, idem_key: at most 255 characters each (longer ones arrive as sha256 digests).
-- expires_at: lease end while IN_PROGRESS, retention end once COMPLETED (database clock).
CREATE TABLE IF NOT EXISTS idempotency_record (
  scope       VARCHAR(255) NOT NULL,
  idem_key    VARCHAR(255) NOT NULL,
  status      VARCHAR(16)  NOT NULL,
  owner       VARCHAR(255) NOT NULL,
  fingerprint VARCHAR(255),
  outcome     BYTEA,
  expires_at  TIMESTAMPTZ  NOT NULL,
  created_at  TIMESTAMPTZ  NOT NULL,
  updated_at  TIMESTAMPTZ  NOT NULL,
  CONSTRAINT idempotency_record_pk PRIMARY KEY (scope, idem_key)
);
CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);
