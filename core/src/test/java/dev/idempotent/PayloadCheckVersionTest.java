package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.internal.Fingerprints;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The payload check compares fingerprints of one version of the format only: a record whose
 * fingerprint another version made (written before an upgrade) is replayed without the check, and
 * the skip is an event.
 */
class PayloadCheckVersionTest {
  private static final IdempotencyPolicy POLICY =
      IdempotencyPolicy.builder("orders.submit").resultType(Receipt.class).build();

  record Receipt(String id) implements Serializable {}

  private final OlderVersionStore store = new OlderVersionStore(new TestStore());
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final Idempotency idempotency =
      Idempotency.create(
          IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
  private final AtomicInteger runs = new AtomicInteger();

  @Test
  void aRecordWhoseFingerprintAnotherVersionMadeIsReplayedWithoutThePayloadCheck()
      throws Exception {
    store.olderVersion = true;
    idempotency.execute(POLICY, "k", "body", () -> submit("first"));
    store.olderVersion = false;

    Receipt same = idempotency.execute(POLICY, "k", "body", () -> submit("again"));
    Receipt other = idempotency.execute(POLICY, "k", "another body", () -> submit("other"));

    assertThat(same.id()).isEqualTo("first");
    assertThat(other.id()).as("not comparable, so not a mismatch").isEqualTo("first");
    assertThat(runs).hasValue(1);
    assertThat(types())
        .containsExactly(
            IdempotencyEvent.Type.EXECUTED,
            IdempotencyEvent.Type.PAYLOAD_CHECK_SKIPPED,
            IdempotencyEvent.Type.REPLAYED,
            IdempotencyEvent.Type.PAYLOAD_CHECK_SKIPPED,
            IdempotencyEvent.Type.REPLAYED);
    assertThat(events.get(1).scope()).isEqualTo("orders.submit");
    assertThat(events.get(1).redactedKey())
        .isEqualTo(RecordKey.of("orders.submit", "k").redactedKey());
  }

  @Test
  void fingerprintsOfTheSameVersionAreStillCheckedAndTheirMismatchRefused() throws Exception {
    idempotency.execute(POLICY, "k", "body", () -> submit("first"));

    assertThat(idempotency.execute(POLICY, "k", "body", () -> submit("again")).id())
        .isEqualTo("first");
    assertThatThrownBy(() -> idempotency.execute(POLICY, "k", "another body", () -> submit("x")))
        .isInstanceOf(IdempotencyKeyMismatchException.class);
    assertThat(runs).hasValue(1);
    assertThat(types()).doesNotContain(IdempotencyEvent.Type.PAYLOAD_CHECK_SKIPPED);
    assertThat(types()).contains(IdempotencyEvent.Type.MISMATCH);
  }

  private Receipt submit(String id) {
    runs.incrementAndGet();
    return new Receipt(id);
  }

  private List<IdempotencyEvent.Type> types() {
    return events.stream().map(IdempotencyEvent::type).toList();
  }

  /**
   * A store that, while {@link #olderVersion} is set, keeps the fingerprints it is given as another
   * version of the format would have made them (another first character).
   */
  static final class OlderVersionStore implements IdempotencyStore {
    final TestStore delegate;
    volatile boolean olderVersion;

    OlderVersionStore(TestStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      String kept = fingerprint;
      if (olderVersion && fingerprint != null) {
        assertThat(fingerprint.charAt(0)).isEqualTo(Fingerprints.VERSION);
        kept = (char) (Fingerprints.VERSION - 1) + fingerprint.substring(1);
      }
      return delegate.claim(key, ownerToken, kept, lease);
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      return delegate.complete(key, ownerToken, outcome, ttl);
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      return delegate.release(key, ownerToken);
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      return delegate.renew(key, ownerToken, lease);
    }

    @Override
    public boolean delete(RecordKey key) {
      return delegate.delete(key);
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      return delegate.read(key);
    }
  }
}
