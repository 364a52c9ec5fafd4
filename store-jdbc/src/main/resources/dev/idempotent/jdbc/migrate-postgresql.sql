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
  scope_id    INTEGER      NOT NULL,
  scope       VARCHAR(255) NOT NULL,
  CONSTRAINT idempotency_record_scope_pk PRIMARY KEY (scope_id)
);
CREATE TABLE idempotency_record (
  expires_at  TIMESTAMPTZ  NOT NULL,
  scope_id    INTEGER      NOT NULL,
  status      SMALLINT     NOT NULL,
  idem_key    VARCHAR(255) NOT NULL,
  owner       VARCHAR(255),
  fingerprint VARCHAR(255),
  outcome     BYTEA,
  CONSTRAINT idempotency_record_pk PRIMARY KEY (scope_id, idem_key)
);
-- Two scopes with the same scope id (the first 32 bits of their SHA-256) stop the migration here, before
-- anything is moved, with an error that names both ("invalid input syntax for type integer: "scopes ... share
-- scope id ..."): rename one of them in the application, then migrate.
SELECT CAST('scopes ' || min(scope) || ' and ' || max(scope) || ' share scope id ' || scope_id
    || ': rename one of them, then migrate' AS INTEGER)
  FROM (SELECT DISTINCT ('x' || substr(encode(sha256(convert_to(scope, 'UTF8')), 'hex'), 1, 8))::bit(32)::integer
      AS scope_id, scope FROM idempotency_record_earlier
    UNION SELECT scope_id, scope FROM idempotency_record_scope) s
  GROUP BY scope_id HAVING COUNT(DISTINCT scope) > 1;
INSERT INTO idempotency_record_scope (scope_id, scope)
  SELECT ('x' || substr(encode(sha256(convert_to(scope, 'UTF8')), 'hex'), 1, 8))::bit(32)::integer, scope
  FROM (SELECT DISTINCT scope FROM idempotency_record_earlier) s
  ON CONFLICT (scope_id) DO NOTHING;
INSERT INTO idempotency_record (expires_at, scope_id, status, idem_key, owner, fingerprint, outcome)
  SELECT expires_at, ('x' || substr(encode(sha256(convert_to(scope, 'UTF8')), 'hex'), 1, 8))::bit(32)::integer,
    CASE status WHEN 'IN_PROGRESS' THEN 1 ELSE 2 END, idem_key, owner, fingerprint, outcome
  FROM idempotency_record_earlier WHERE expires_at > statement_timestamp();
CREATE INDEX idempotency_record_expiry_idx
  ON idempotency_record (date_trunc('second', expires_at AT TIME ZONE 'UTC'));
