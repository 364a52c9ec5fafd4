-- Idempotency records for dev.idempotent.jdbc.JdbcIdempotencyStore on MySQL 8+ and MariaDB 10.6+ (InnoDB).
-- Run once (or build the store with createTable(true) / idempotent.jdbc.create-table=true).
-- For another table name, replace idempotency_record everywhere below.
-- idempotency_record_scope: each scope's text once (UTF-8 bytes); scope_id is the first 32 bits of its SHA-256,
-- signed. (A table created with scope_id BIGINT, as by earlier versions, keeps its 64-bit ids: the store reads the
-- column's type.) Two scopes with the same id are refused on their first call, naming both: rename one.
-- Read the records with their scopes: SELECT CAST(s.scope AS CHAR) AS scope, r.*
--   FROM idempotency_record r LEFT JOIN idempotency_record_scope s USING (scope_id).
-- idem_key: UTF-8 bytes of at most 255 characters, compared byte for byte (case and trailing spaces count);
-- longer keys and scopes arrive as sha256 digests.
-- status: 1 in progress, 2 completed.
-- outcome: LONGBLOB; outcomes larger than the server's max_allowed_packet (16 MiB on MariaDB, 64 MiB on
-- MySQL 8 by default) are rejected by the server.
-- expires_at: lease end while in progress, retention end once completed, in UTC (UTC_TIMESTAMP(6)).
CREATE TABLE IF NOT EXISTS idempotency_record_scope (
  scope_id    INT NOT NULL,
  scope       VARBINARY(1020) NOT NULL,
  PRIMARY KEY (scope_id)
) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS idempotency_record (
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
