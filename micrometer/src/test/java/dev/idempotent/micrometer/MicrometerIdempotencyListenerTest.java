package dev.idempotent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.OnInProgress;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.RecordKey;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MicrometerIdempotencyListenerTest {
  private static final String SECRET_KEY = "card=4111111111111111";

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Idempotency idempotency =
      Idempotency.create(
          IdempotencyConfig.builder()
              .defaultStore(CaffeineIdempotencyStore.builder().build())
              .listener(
                  MicrometerIdempotencyListener.builder(registry)
                      .tags(Tags.of("app", "shop"))
                      .build())
              .build());
  private final IdempotencyPolicy submit = IdempotencyPolicy.builder("orders.submit").build();

  @Test
  void countsEachOutcomeByScopeAndTimesExecutions() throws Exception {
    assertThat(idempotency.execute(submit, SECRET_KEY, "body", () -> "receipt"))
        .isEqualTo("receipt");
    assertThat(idempotency.execute(submit, SECRET_KEY, "body", () -> "other")).isEqualTo("receipt");
    assertThat(idempotency.execute(submit, SECRET_KEY, "body", () -> "other")).isEqualTo("receipt");
    assertThatThrownBy(() -> idempotency.execute(submit, SECRET_KEY, "another body", () -> "x"))
        .isInstanceOf(IdempotencyKeyMismatchException.class);

    assertThat(count("executed")).isEqualTo(1);
    assertThat(count("replayed")).isEqualTo(2);
    assertThat(count("mismatch")).isEqualTo(1);
    assertThat(count("fenced")).isZero();
    assertThat(
            registry
                .get(MicrometerIdempotencyListener.EXECUTIONS)
                .tag("scope", "orders.submit")
                .timer()
                .count())
        .isEqualTo(1);
  }

  @Test
  void countsARepeatRejectedWhileTheFirstCallRuns() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Thread first =
        new Thread(
            () -> {
              try {
                idempotency.execute(
                    submit,
                    "k",
                    () -> {
                      running.countDown();
                      finish.await(5, TimeUnit.SECONDS);
                      return "done";
                    });
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    first.start();
    assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(() -> idempotency.execute(submit, "k", () -> "second"))
        .isInstanceOf(IdempotencyInProgressException.class);
    finish.countDown();
    first.join(5_000);
    assertThat(count("in_progress")).isEqualTo(1);
    assertThat(count("executed")).isEqualTo(1);
  }

  @Test
  void countsARepeatWhosePayloadCheckWasSkippedForARecordOfAnotherFingerprintVersion()
      throws Exception {
    CaffeineIdempotencyStore store = CaffeineIdempotencyStore.builder().build();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .listener(MicrometerIdempotencyListener.of(registry))
                .build());
    IdempotencyPolicy reject =
        IdempotencyPolicy.builder("orders.submit").onInProgress(OnInProgress.REJECT).build();
    idem.execute(reject, "first", "body", () -> "x");
    String current = store.read(RecordKey.of("orders.submit", "first")).orElseThrow().fingerprint();
    // a call still running under a claim that an instance of an earlier version wrote
    String earlier = (char) (current.charAt(0) - 1) + current.substring(1);
    store.claim(RecordKey.of("orders.submit", "k"), "holder", earlier, Duration.ofMinutes(1));

    assertThatThrownBy(() -> idem.execute(reject, "k", "another body", () -> "x"))
        .isInstanceOf(IdempotencyInProgressException.class);

    assertThat(count("payload_check_skipped")).isEqualTo(1);
    assertThat(count("mismatch")).isZero();
    assertThat(count("in_progress")).isEqualTo(1);
  }

  @Test
  void everyOutcomeIsRegisteredWhenTheScopeIsFirstSeenAndNoTagCarriesTheKey() throws Exception {
    idempotency.execute(submit, SECRET_KEY, () -> "receipt");
    for (IdempotencyEvent.Type type : IdempotencyEvent.Type.values()) {
      assertThat(
              registry
                  .find(MicrometerIdempotencyListener.CALLS)
                  .tags(
                      "scope",
                      "orders.submit",
                      "outcome",
                      type.name().toLowerCase(java.util.Locale.ROOT))
                  .counter())
          .as(type.name())
          .isNotNull();
    }
    for (Meter meter : registry.getMeters()) {
      for (Tag tag : meter.getId().getTags()) {
        assertThat(tag.getValue()).doesNotContain("4111");
      }
      assertThat(meter.getId().getTag("app")).isEqualTo("shop");
    }
  }

  @Test
  void scopesBeyondTheBoundShareOneTag() throws Exception {
    SimpleMeterRegistry bounded = new SimpleMeterRegistry();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(CaffeineIdempotencyStore.builder().build())
                .listener(MicrometerIdempotencyListener.builder(bounded).maxScopes(2).build())
                .build());
    for (int i = 0; i < 5; i++) {
      idem.execute(IdempotencyPolicy.builder("scope-" + i).build(), "k", () -> "v");
    }
    assertThat(
            bounded.find(MicrometerIdempotencyListener.CALLS).tagKeys("scope").counters().stream()
                .map(c -> c.getId().getTag("scope"))
                .distinct())
        .containsExactlyInAnyOrder("scope-0", "scope-1", MicrometerIdempotencyListener.OTHER_SCOPE);
    assertThat(
            bounded
                .get(MicrometerIdempotencyListener.CALLS)
                .tags("scope", MicrometerIdempotencyListener.OTHER_SCOPE, "outcome", "executed")
                .counter()
                .count())
        .isEqualTo(3);
  }

  @Test
  void builderRejectsBadSettingsNamingThem() {
    assertThatThrownBy(() -> MicrometerIdempotencyListener.builder(registry).maxScopes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxScopes")
        .hasMessageContaining("0");
    assertThatThrownBy(
            () -> MicrometerIdempotencyListener.builder(registry).tags(Tags.of("scope", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("scope");
  }

  private double count(String outcome) {
    return registry
        .get(MicrometerIdempotencyListener.CALLS)
        .tags("scope", "orders.submit", "outcome", outcome)
        .counter()
        .count();
  }

  @Test
  void bindsEachStoresRenewalLagAndHeldClaimsAsGauges() throws Exception {
    String storeName = "stalling-" + java.util.UUID.randomUUID();
    CountDownLatch unstall = new CountDownLatch(1);
    StallingStore stalling = new StallingStore(CaffeineIdempotencyStore.builder().build(), unstall);
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(stalling)
                .store(storeName, stalling)
                .listener(MicrometerIdempotencyListener.builder(registry).build())
                .build());
    Duration lease = Duration.ofMillis(600);
    try {
      dev.idempotent.IdempotencyClaim claim =
          idem.claim(IdempotencyPolicy.builder("held").store(storeName).lease(lease).build(), "k")
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
      assertThat(claim.runs()).isTrue();

      long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (System.nanoTime() < giveUp
          && (registry
                      .find(MicrometerIdempotencyListener.RENEWAL_LAG)
                      .tag("store", storeName)
                      .timeGauge()
                  == null
              || registry
                      .get(MicrometerIdempotencyListener.RENEWAL_LAG)
                      .tag("store", storeName)
                      .timeGauge()
                      .value(TimeUnit.MILLISECONDS)
                  < 100)) {
        Thread.sleep(10);
      }
      assertThat(
              registry
                  .get(MicrometerIdempotencyListener.RENEWAL_LAG)
                  .tag("store", storeName)
                  .timeGauge()
                  .value(TimeUnit.MILLISECONDS))
          .as("renewal lag of the store whose renewals stall")
          .isGreaterThanOrEqualTo(100);
      assertThat(
              registry
                  .get(MicrometerIdempotencyListener.HELD_CLAIMS)
                  .tag("store", storeName)
                  .gauge()
                  .value())
          .isEqualTo(1);
      unstall.countDown();
      claim.release().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } finally {
      unstall.countDown();
    }
  }

  /** The memory store, whose renewals wait for a latch. */
  private static final class StallingStore implements dev.idempotent.spi.IdempotencyStore {
    private final CaffeineIdempotencyStore inner;
    private final CountDownLatch unstall;

    StallingStore(CaffeineIdempotencyStore inner, CountDownLatch unstall) {
      this.inner = inner;
      this.unstall = unstall;
    }

    @Override
    public dev.idempotent.spi.ClaimResult claim(
        RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      return inner.claim(key, ownerToken, fingerprint, lease);
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      return inner.complete(key, ownerToken, outcome, ttl);
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      return inner.release(key, ownerToken);
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      try {
        unstall.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return inner.renew(key, ownerToken, lease);
    }

    @Override
    public boolean delete(RecordKey key) {
      return inner.delete(key);
    }

    @Override
    public java.util.Optional<dev.idempotent.spi.IdempotencyRecord> read(RecordKey key) {
      return inner.read(key);
    }
  }
}
