-- Idempotency records for dev.idempotent.jdbc.JdbcIdempotencyStore on MariaDB 10.6+ and MySQL 8+ (InnoDB):
-- format version 1.
-- Run once (or build the store with createTable(true) / idempotent.jdbc.create-table=true).
-- For another table name, replace idempotency_record everywhere below.
-- idempotency_record_meta: the format version of the three tables; a store refuses tables of another version.
-- idempotency_record_scope: each scope's text once (UTF-8 bytes), under its id (the first 64 bits of the SHA-256
-- of its UTF-8 bytes, signed); refreshed_at (UTC): when a store last said it writes records of the scope (at most
-- hourly). The purge deletes scope rows without records that have gone unrefreshed for a day.
-- idempotency_record: one row per record. idem_key: UTF-8 bytes of at most 255 characters, compared byte for byte
-- (case and trailing spaces count); longer keys and scopes arrive as sha256 digests. owner: the claim's owner
-- token while in progress, NULL once completed. outcome: the encoded outcome once completed, NULL while in
-- progress; outcomes larger than the server's max_allowed_packet (16 MiB on MariaDB, 64 MiB on MySQL 8 by
-- default) are rejected by the server. expires_at: lease end while in progress, retention end once completed,
-- in UTC (UTC_TIMESTAMP(6)).
-- Read the records with their scopes: SELECT CAST(s.scope AS CHAR) AS scope, r.*
--   FROM idempotency_record r LEFT JOIN idempotency_record_scope s USING (scope_id).
CREATE TABLE IF NOT EXISTS idempotency_record_meta (
  format_version INT NOT NULL,
  PRIMARY KEY (format_version)
) ENGINE=InnoDB;
-- The version before the other tables: whoever finds the record table finds its version too.
INSERT INTO idempotency_record_meta (format_version)
  SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM idempotency_record_meta)
  ON DUPLICATE KEY UPDATE format_version = format_version;
CREATE TABLE IF NOT EXISTS idempotency_record_scope (
  scope_id     BIGINT NOT NULL,
  scope        VARBINARY(1020) NOT NULL,
  refreshed_at DATETIME(6) NOT NULL,
  PRIMARY KEY (scope_id)
) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS idempotency_record (
  scope_id    BIGINT NOT NULL,
  idem_key    VARBINARY(1020) NOT NULL,
  owner       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  fingerprint VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  outcome     LONGBLOB NULL,
  expires_at  DATETIME(6) NOT NULL,
  PRIMARY KEY (scope_id, idem_key),
  INDEX idempotency_record_expires_at_idx (expires_at)
) ENGINE=InnoDB;
