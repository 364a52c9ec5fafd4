-- Idempotency records for dev.idempotent.jdbc.JdbcIdempotencyStore on H2 2.x.
-- Run once (or build the store with createTable(true) / idempotent.jdbc.create-table=true).
-- For another table name, replace idempotency_record everywhere below.
CREATE TABLE IF NOT EXISTS idempotency_record (
  scope       VARCHAR(255) NOT NULL,
  idem_key    VARCHAR(255) NOT NULL,
  status      VARCHAR(16)  NOT NULL,
  owner       VARCHAR(255) NOT NULL,
  fingerprint VARCHAR(255),
  outcome     BINARY LARGE OBJECT,
  expires_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  created_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  updated_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  CONSTRAINT idempotency_record_pk PRIMARY KEY (scope, idem_key)
);
CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);
