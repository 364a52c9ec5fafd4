-- Moves a table of the earlier record layout (scope text in every row, created by the earlier
-- schema-mysql.sql) into the compact layout of schema-mysql.sql, keeping its live records.
-- Run it with the applications' writes stopped: MySQL/MariaDB commit each DDL statement on its own, and
-- a store call between the RENAME and the end of the copy would not see the records being copied.
-- Running stores find the new layout on their next call.
-- mariadb (or mysql) --database=<db> < migrate-mysql.sql
-- The earlier table stays as idempotency_record_earlier: drop it once satisfied.
-- For another table name, replace idempotency_record everywhere below.
CREATE TABLE IF NOT EXISTS idempotency_record_scope (
  scope_id    BIGINT NOT NULL,
  scope       VARBINARY(1020) NOT NULL,
  PRIMARY KEY (scope_id)
) ENGINE=InnoDB;
CREATE TABLE idempotency_record_compact (
  scope_id    BIGINT NOT NULL,
  idem_key    VARBINARY(1020) NOT NULL,
  status      TINYINT NOT NULL,
  owner       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  fingerprint VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  outcome     LONGBLOB NULL,
  expires_at  DATETIME(6) NOT NULL,
  PRIMARY KEY (scope_id, idem_key),
  INDEX idempotency_record_expires_at_idx (expires_at)
) ENGINE=InnoDB;
RENAME TABLE idempotency_record TO idempotency_record_earlier, idempotency_record_compact TO idempotency_record;
INSERT INTO idempotency_record_scope (scope_id, scope)
  SELECT CAST(CAST(CONV(LEFT(SHA2(scope, 256), 16), 16, 10) AS UNSIGNED) AS SIGNED), scope
  FROM (SELECT DISTINCT scope FROM idempotency_record_earlier) s
  ON DUPLICATE KEY UPDATE scope_id = idempotency_record_scope.scope_id;
INSERT INTO idempotency_record (scope_id, idem_key, status, owner, fingerprint, outcome, expires_at)
  SELECT CAST(CAST(CONV(LEFT(SHA2(scope, 256), 16), 16, 10) AS UNSIGNED) AS SIGNED), idem_key,
    IF(status = 'IN_PROGRESS', 1, 2), owner, fingerprint, outcome, expires_at
  FROM idempotency_record_earlier WHERE expires_at > UTC_TIMESTAMP(6)
  ON DUPLICATE KEY UPDATE scope_id = idempotency_record.scope_id;
