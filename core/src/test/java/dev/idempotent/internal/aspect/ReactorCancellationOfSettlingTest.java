package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.Idempotent;
import dev.idempotent.RealClockStore;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * A store's stages may refuse cancellation (a {@code CompletableFuture.completedStage} throws on
 * {@code cancel}, as the memory store's answers do). Whatever the subscriber does after the value
 * (an error further down the chain, a {@code take}), the settling stage is never cancelled: no
 * error is dropped and the outcome stays recorded.
 */
class ReactorCancellationOfSettlingTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private final List<Throwable> dropped = new CopyOnWriteArrayList<>();
  private final Payments payments = new Payments();

  @BeforeEach
  void install() {
    Hooks.onErrorDropped(dropped::add);
    Idempotency.install(IdempotencyConfig.builder().defaultStore(new MinimalStageStore()).build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
    Hooks.resetOnErrorDropped();
  }

  static final class Payments {
    final AtomicInteger runs = new AtomicInteger();

    @Idempotent(key = "#id")
    Mono<String> pay(String id) {
      return Mono.fromSupplier(() -> "paid " + id + " #" + runs.incrementAndGet());
    }

    @Idempotent(key = "#id")
    Flux<Integer> items(String id) {
      runs.incrementAndGet();
      return Flux.range(1, 3);
    }
  }

  private <T> T call(String name, Object... args) throws Throwable {
    return PlannedCalls.call(payments, name, args);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void anErrorAfterTheValueDropsNothingAndTheOutcomeStaysRecorded() throws Throwable {
    Mono<String> pay = call("pay", "e-1");
    StepVerifier.create(pay.flatMap(v -> Mono.error(new IllegalStateException("after " + v))))
        .expectErrorMessage("after paid e-1 #1")
        .verify(TIMEOUT);
    StepVerifier.create(this.<Mono<String>>call("pay", "e-1"))
        .expectNext("paid e-1 #1")
        .expectComplete()
        .verify(TIMEOUT);
    assertThat(dropped).isEmpty();
    assertThat(payments.runs).hasValue(1);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void aValueTakenByNextDropsNothing() throws Throwable {
    Mono<String> pay = call("pay", "e-2");
    StepVerifier.create(pay.flux().next()).expectNext("paid e-2 #1").expectComplete().verify();
    StepVerifier.create(pay.then(Mono.just("then"))).expectNext("then").expectComplete().verify();
    StepVerifier.create(this.<Flux<Integer>>call("items", "e-3").take(3))
        .expectNext(1, 2, 3)
        .expectComplete()
        .verify(TIMEOUT);
    StepVerifier.create(
            this.<Flux<Integer>>call("items", "e-4")
                .concatMap(i -> i == 3 ? Mono.error(new IllegalStateException("3")) : Mono.just(i)))
        .expectNext(1, 2)
        .expectErrorMessage("3")
        .verify(TIMEOUT);
    assertThat(dropped).isEmpty();
    assertThat(payments.runs).hasValue(3);
  }

  /** A store whose non-blocking face answers with stages that refuse cancellation. */
  static final class MinimalStageStore implements IdempotencyStore, AsyncIdempotencyStore {
    private final RealClockStore store = new RealClockStore();

    @Override
    public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      return store.claim(key, ownerToken, fingerprint, lease);
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      return store.complete(key, ownerToken, outcome, ttl);
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      return store.release(key, ownerToken);
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      return store.renew(key, ownerToken, lease);
    }

    @Override
    public boolean delete(RecordKey key) {
      return store.delete(key);
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      return store.read(key);
    }

    @Override
    public CompletionStage<ClaimResult> claimAsync(
        RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      return CompletableFuture.completedStage(claim(key, ownerToken, fingerprint, lease));
    }

    @Override
    public CompletionStage<Boolean> completeAsync(
        RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      return CompletableFuture.completedStage(complete(key, ownerToken, outcome, ttl));
    }

    @Override
    public CompletionStage<Boolean> releaseAsync(RecordKey key, String ownerToken) {
      return CompletableFuture.completedStage(release(key, ownerToken));
    }

    @Override
    public CompletionStage<Boolean> renewAsync(RecordKey key, String ownerToken, Duration lease) {
      return CompletableFuture.completedStage(renew(key, ownerToken, lease));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> readAsync(RecordKey key) {
      return CompletableFuture.completedStage(read(key));
    }

    @Override
    public CompletionStage<Void> awaitChangeAsync(RecordKey key, Duration maxWait) {
      return CompletableFuture.completedStage(null);
    }
  }
}
