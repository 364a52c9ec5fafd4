package dev.idempotent.jdbc.internal;

import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * A key's row as read, live or expired: in progress while it has an owner; completed, with an
 * outcome, once it has none.
 *
 * @param microsLeft until it expires; zero or less once it has
 */
public record StoredRow(String owner, String fingerprint, byte[] outcome, long microsLeft) {

  /** The row at the current position of {@code rs}: owner, fingerprint, outcome, µs left. */
  public static StoredRow read(ResultSet rs) throws SQLException {
    return new StoredRow(rs.getString(1), rs.getString(2), rs.getBytes(3), rs.getLong(4));
  }

  public boolean inProgress() {
    return owner != null;
  }

  public boolean live() {
    return microsLeft > 0;
  }

  /** Whether this is the claim of {@code ownerToken}. */
  public boolean isClaimOf(String ownerToken) {
    return ownerToken.equals(owner) && outcome == null;
  }

  /**
   * What the row is when it is none of the store's records (a claim with an outcome, a completed
   * record without one), else {@code null}.
   */
  public String unreadable() {
    if (owner != null && outcome != null) {
      return "a claim with an outcome";
    }
    return owner == null && outcome == null ? "a completed record without an outcome" : null;
  }

  /** This row as the record of {@code key}; only for a row that is a record. */
  public IdempotencyRecord record(RecordKey key) {
    Duration left = Duration.of(microsLeft, ChronoUnit.MICROS);
    return inProgress()
        ? IdempotencyRecord.inProgress(key, owner, fingerprint, left)
        : IdempotencyRecord.completed(key, null, fingerprint, outcome, left);
  }
}
