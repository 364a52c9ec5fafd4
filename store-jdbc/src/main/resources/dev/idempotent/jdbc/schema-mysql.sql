-- Idempotency records for dev.idempotent.jdbc.JdbcIdempotencyStore on MySQL 8+ and MariaDB 10.6+ (InnoDB).
-- Run once (or build the store with createTable(true) / idempotent.jdbc.create-table=true).
-- For another table name, replace idempotency_record everywhere below.
-- scope, idem_key: UTF-8 bytes of at most 255 characters each, compared byte for byte (case and trailing
-- spaces count); longer ones arrive as sha256 digests. The primary key stays under InnoDB's 3072-byte limit.
-- outcome: LONGBLOB; outcomes larger than the server's max_allowed_packet (16 MiB on MariaDB, 64 MiB on
-- MySQL 8 by default) are rejected by the server.
-- expires_at: lease end while IN_PROGRESS, retention end once COMPLETED, in UTC (UTC_TIMESTAMP(6)).
CREATE TABLE IF NOT EXISTS idempotency_record (
  scope       VARBINARY(1020) NOT NULL,
  idem_key    VARBINARY(1020) NOT NULL,
  status      VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  owner       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  fingerprint VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  outcome     LONGBLOB NULL,
  expires_at  DATETIME(6) NOT NULL,
  created_at  DATETIME(6) NOT NULL,
  updated_at  DATETIME(6) NOT NULL,
  PRIMARY KEY (scope, idem_key),
  INDEX idempotency_record_expires_at_idx (expires_at)
) ENGINE=InnoDB;
