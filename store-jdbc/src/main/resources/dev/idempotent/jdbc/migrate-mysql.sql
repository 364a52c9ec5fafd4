-- Moves a table of the earlier record layout (scope text in every row, created by the earlier
-- schema-mysql.sql) into the compact layout of schema-mysql.sql, keeping its live records.
-- Run it with the applications' writes stopped: MySQL/MariaDB commit each DDL statement on its own, and
-- a store call between the RENAME and the end of the copy would not see the records being copied.
-- Running stores find the new layout on their next call.
-- mariadb (or mysql) --database=<db> < migrate-mysql.sql
-- The earlier table stays as idempotency_record_earlier: drop it once satisfied.
-- For another table name, replace idempotency_record everywhere below.
CREATE TABLE IF NOT EXISTS idempotency_record_scope (
  scope_id    INT NOT NULL,
  scope       VARBINARY(1020) NOT NULL,
  PRIMARY KEY (scope_id)
) ENGINE=InnoDB;
CREATE TABLE idempotency_record_compact (
  scope_id    INT NOT NULL,
  idem_key    VARBINARY(1020) NOT NULL,
  status      TINYINT NOT NULL,
  owner       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  fingerprint VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  outcome     LONGBLOB NULL,
  expires_at  DATETIME(6) NOT NULL,
  PRIMARY KEY (scope_id, idem_key),
  INDEX idempotency_record_expires_at_idx (expires_at)
) ENGINE=InnoDB;
-- The scope ids (the first 32 bits of each scope's SHA-256, signed), worked out before anything is renamed, in
-- a temporary table of this session. Two scopes with the same id (or a scope whose id idempotency_record_scope
-- already holds for another) stop the migration here, before the RENAME, with an error that names both:
-- "Incorrect integer value: 'scopes ... and ... share scope id ...'" (in the default strict SQL mode; without
-- it, a duplicate-key error on idempotency_record_ids). Rename one of the two scopes in the application, drop
-- idempotency_record_compact, and run the script again.
CREATE TEMPORARY TABLE idempotency_record_ids (
  scope       VARBINARY(1020) NOT NULL,
  scope_id    INT NOT NULL,
  PRIMARY KEY (scope),
  UNIQUE KEY idempotency_record_ids_id (scope_id)
) ENGINE=InnoDB;
INSERT INTO idempotency_record_ids (scope, scope_id)
  SELECT MIN(scope), CONCAT('scopes ', MIN(scope), ' and ', MAX(scope), ' share scope id ', scope_id,
    ': rename one of them, then migrate')
  FROM (SELECT DISTINCT scope, CAST(CONV(LEFT(SHA2(scope, 256), 8), 16, 10) AS SIGNED)
      - IF(CONV(LEFT(SHA2(scope, 256), 1), 16, 10) >= 8, 4294967296, 0) AS scope_id
    FROM idempotency_record
    UNION SELECT scope, scope_id FROM idempotency_record_scope) s
  GROUP BY scope_id HAVING COUNT(DISTINCT scope) > 1;
INSERT INTO idempotency_record_ids (scope, scope_id)
  SELECT DISTINCT scope, CAST(CONV(LEFT(SHA2(scope, 256), 8), 16, 10) AS SIGNED)
      - IF(CONV(LEFT(SHA2(scope, 256), 1), 16, 10) >= 8, 4294967296, 0)
  FROM idempotency_record
  UNION SELECT scope, scope_id FROM idempotency_record_scope;
RENAME TABLE idempotency_record TO idempotency_record_earlier, idempotency_record_compact TO idempotency_record;
INSERT INTO idempotency_record_scope (scope_id, scope)
  SELECT scope_id, scope FROM idempotency_record_ids
  ON DUPLICATE KEY UPDATE scope_id = idempotency_record_scope.scope_id;
INSERT INTO idempotency_record (scope_id, idem_key, status, owner, fingerprint, outcome, expires_at)
  SELECT i.scope_id, r.idem_key, IF(r.status = 'IN_PROGRESS', 1, 2), r.owner, r.fingerprint, r.outcome,
    r.expires_at
  FROM idempotency_record_earlier r JOIN idempotency_record_ids i ON i.scope = r.scope
  WHERE r.expires_at > UTC_TIMESTAMP(6)
  ON DUPLICATE KEY UPDATE scope_id = idempotency_record.scope_id;
DROP TEMPORARY TABLE idempotency_record_ids;
