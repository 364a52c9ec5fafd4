package dev.idempotent.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A completed record may come without its owner token (a store may keep only a digest of it); a
 * claim may not.
 */
class IdempotencyRecordTest {
  private static final RecordKey KEY = RecordKey.of("scope", "key");

  @Test
  void aCompletedRecordMayHaveNoOwnerToken() {
    IdempotencyRecord record =
        IdempotencyRecord.completed(KEY, null, "fp", new byte[] {1}, Duration.ofMinutes(1));

    assertThat(record.ownerToken()).isNull();
    assertThat(record)
        .isEqualTo(IdempotencyRecord.completed(KEY, null, "fp", new byte[] {1}, Duration.ZERO))
        .isNotEqualTo(
            IdempotencyRecord.completed(KEY, "owner", "fp", new byte[] {1}, Duration.ZERO))
        .hasSameHashCodeAs(
            IdempotencyRecord.completed(KEY, null, "fp", new byte[] {1}, Duration.ZERO));
    assertThat(record.toString()).contains("owner=null");
  }

  @Test
  void aRecordInProgressNeedsItsOwnerToken() {
    assertThatThrownBy(() -> IdempotencyRecord.inProgress(KEY, null, null, Duration.ofMinutes(1)))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("ownerToken");
  }
}
