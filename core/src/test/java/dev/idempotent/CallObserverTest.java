package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What an {@link IdempotencyObserver} sees: one start and one end per call, with the outcome that
 * says how the call ended, the events in between, and the store round trips; on the blocking and
 * the deferred path alike.
 */
class CallObserverTest {
  private final TestStore store = new TestStore();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private volatile CountDownLatch waiting = new CountDownLatch(1);

  /** Writes what it sees as lines: "start scope store adapter", "event x", "claim ok", "end x". */
  private final IdempotencyObserver observer =
      (scope, storeName, adapter, digest) -> {
        seen.add("start " + scope + " " + storeName + " " + adapter);
        return new IdempotencyObserver.Call() {
          @Override
          public void event(IdempotencyEvent.Type type) {
            seen.add("event " + type.name().toLowerCase());
          }

          @Override
          public IdempotencyObserver.RoundTrip roundTrip(String operation) {
            return error -> seen.add(operation + (error == null ? " ok" : " failed"));
          }

          @Override
          public IdempotencyObserver.RoundTrip waitForKey() {
            seen.add("wait");
            waiting.countDown();
            return error -> seen.add(error == null ? "waited" : "wait failed");
          }

          @Override
          public IdempotencyObserver.Scope openScope() {
            seen.add("scope open");
            return () -> seen.add("scope closed");
          }

          @Override
          public void end(CallOutcome outcome, Throwable error) {
            seen.add("end " + outcome.tag());
          }
        };
      };

  private Idempotency idem(StoreFailurePolicy policy) {
    return Idempotency.create(
        IdempotencyConfig.builder()
            .defaultStore(store)
            .timeSource(store)
            .storeFailurePolicy(policy)
            .observer(observer)
            .build());
  }

  private final Idempotency idem = idem(StoreFailurePolicy.FAIL_CLOSED);

  private static IdempotencyPolicy.Builder policy(String scope) {
    return IdempotencyPolicy.builder(scope).resultType(String.class);
  }

  private List<String> ends() {
    return seen.stream().filter(s -> s.startsWith("end ")).toList();
  }

  @Test
  void aFirstCallAndItsRepeatAreObservedFromStartToEnd() throws Exception {
    IdempotencyPolicy p = policy("obs.first").build();
    idem.execute(p, "k", () -> "r");
    assertThat(seen)
        .containsExactly(
            "start obs.first default method",
            "claim ok",
            "scope open",
            "scope closed",
            "complete ok",
            "end executed");
    seen.clear();

    idem.execute(p, "k", () -> "again");
    assertThat(seen).containsExactly("start obs.first default method", "claim ok", "end replayed");
  }

  @Test
  void eachWayACallEndsHasAnOutcomeOfItsOwn() throws Exception {
    IdempotencyPolicy reject = policy("obs.reject").onDuplicate(OnDuplicate.REJECT).build();
    idem.execute(reject, "k", () -> "r");
    assertThatThrownBy(() -> idem.execute(reject, "k", () -> "r"))
        .isInstanceOf(DuplicateRequestException.class);

    IdempotencyPolicy mismatch = policy("obs.mismatch").build();
    idem.execute(mismatch, "k", "payload-1", () -> "r");
    assertThatThrownBy(() -> idem.execute(mismatch, "k", "payload-2", () -> "r"))
        .isInstanceOf(IdempotencyKeyMismatchException.class);

    IdempotencyPolicy recorded =
        policy("obs.recorded").recordFailures(IllegalStateException.class).build();
    assertThatThrownBy(
            () ->
                idem.execute(
                    recorded,
                    "k",
                    () -> {
                      throw new IllegalStateException("declined");
                    }))
        .isInstanceOf(IllegalStateException.class);

    IdempotencyPolicy released = policy("obs.released").build();
    assertThatThrownBy(
            () ->
                idem.execute(
                    released,
                    "k",
                    () -> {
                      throw new IllegalArgumentException("bad");
                    }))
        .isInstanceOf(IllegalArgumentException.class);

    IdempotencyPolicy blocked =
        policy("obs.blocked").onAmbiguousFailure(OnAmbiguousFailure.BLOCK).build();
    assertThatThrownBy(
            () ->
                idem.execute(
                    blocked,
                    "k",
                    () -> {
                      throw new IllegalArgumentException("unknown");
                    }))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> idem.execute(blocked, "k", () -> "r"))
        .isInstanceOf(IdempotencyBlockedException.class);

    assertThat(ends())
        .containsExactly(
            "end executed",
            "end rejected_duplicate",
            "end executed",
            "end payload_mismatch",
            "end recorded_failure",
            "end released",
            "end recorded_failure",
            "end blocked");
  }

  @Test
  void aKeyInProgressAndATakeOverAreSeen() throws Exception {
    IdempotencyPolicy p = policy("obs.held").onInProgress(OnInProgress.REJECT).build();
    IdempotencyClaim held = idem.claim(p, "k").toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(held.runs()).isTrue();
    assertThatThrownBy(() -> idem.execute(p, "k", () -> "r"))
        .isInstanceOf(IdempotencyInProgressException.class);
    assertThat(ends()).containsExactly("end in_progress");

    store.advance(IdempotencyConfig.DEFAULT_LEASE.plusSeconds(1));
    seen.clear();
    idem.execute(p, "k", () -> "r");
    assertThat(seen).contains("event taken_over", "end executed");

    seen.clear();
    held.complete("late").toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(seen).containsExactly("complete ok", "end fenced");
  }

  @Test
  void aStoreFailureEndsTheCallClosedOrOpenAsThePolicySays() throws Exception {
    store.failClaim = new IllegalStateException("down");
    IdempotencyPolicy p = policy("obs.down").build();
    assertThatThrownBy(() -> idem.execute(p, "k", () -> "r"))
        .isInstanceOf(IdempotencyStoreException.class);
    assertThat(idem(StoreFailurePolicy.FAIL_OPEN).execute(p, "k", () -> "ran")).isEqualTo("ran");
    assertThat(ends()).containsExactly("end store_failure_closed", "end store_failure_open");
    assertThat(seen).contains("claim failed");
  }

  @Test
  void aFailOpenCallIsObservedUntilItsUnprotectedBodyEnds() throws Exception {
    store.failClaim = new IllegalStateException("down");
    Idempotency open = idem(StoreFailurePolicy.FAIL_OPEN);
    IdempotencyPolicy p = policy("obs.open").build();
    assertThat(
            open.execute(
                p,
                "k",
                () -> {
                  seen.add("body");
                  return "ran";
                }))
        .isEqualTo("ran");
    assertThat(seen)
        .containsExactly(
            "start obs.open default method",
            "claim failed",
            "event store_error",
            "scope open",
            "body",
            "scope closed",
            "end store_failure_open");

    seen.clear();
    assertThatThrownBy(
            () ->
                open.execute(
                    p,
                    "k",
                    () -> {
                      seen.add("body");
                      throw new IllegalArgumentException("bad");
                    }))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(seen).endsWith("body", "scope closed", "end store_failure_open");

    // deferred (RUN_UNPROTECTED): the observation ends when the work's stage does
    seen.clear();
    CompletableFuture<String> work = new CompletableFuture<>();
    CompletableFuture<Void> started = new CompletableFuture<>();
    CompletableFuture<String> result =
        open.executeDeferred(
                p,
                "k",
                null,
                () -> {
                  started.complete(null);
                  return work;
                })
            .toCompletableFuture();
    started.get(5, TimeUnit.SECONDS);
    assertThat(ends()).isEmpty();
    seen.add("work done");
    work.complete("r");
    assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("r");
    assertThat(seen)
        .containsSubsequence("scope open", "work done", "end store_failure_open")
        .contains("scope closed");

    // an async plan on the blocking driver: when the returned stage completes
    seen.clear();
    CompletableFuture<String> later = new CompletableFuture<>();
    CompletableFuture<String> returned =
        open.executeAsync(policy("obs.open.async").build(), "k", () -> later).toCompletableFuture();
    assertThat(ends()).isEmpty();
    later.complete("r");
    assertThat(returned.get(5, TimeUnit.SECONDS)).isEqualTo("r");
    assertThat(ends()).containsExactly("end store_failure_open");
  }

  @Test
  void eachWaitForAKeyInProgressIsObservedOnBothPaths() throws Exception {
    IdempotencyPolicy p = policy("obs.wait").onInProgress(OnInProgress.WAIT).build();
    IdempotencyClaim held = idem.claim(p, "k").toCompletableFuture().get(5, TimeUnit.SECONDS);
    seen.clear();
    CompletableFuture<String> blocking =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return idem.execute(p, "k", () -> "again");
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
    held.complete("first").toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(blocking.get(5, TimeUnit.SECONDS)).isEqualTo("first");
    // the waiter's own lines: a claim, at least one wait (each ended), the claim that replays
    List<String> waiter =
        seen.stream()
            .filter(l -> !l.equals("complete ok") && !l.startsWith("end executed"))
            .toList();
    assertThat(waiter)
        .startsWith("start obs.wait default method", "claim ok", "wait")
        .endsWith("waited", "claim ok", "end replayed");
    assertThat(waiter.stream().filter("wait"::equals).count())
        .isEqualTo(waiter.stream().filter("waited"::equals).count());

    IdempotencyPolicy q = policy("obs.wait.deferred").onInProgress(OnInProgress.WAIT).build();
    IdempotencyClaim holds = idem.claim(q, "k").toCompletableFuture().get(5, TimeUnit.SECONDS);
    seen.clear();
    waiting = new CountDownLatch(1);
    CompletableFuture<String> deferred =
        idem.executeDeferred(q, "k", null, () -> CompletableFuture.completedFuture("again"))
            .toCompletableFuture();
    assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
    holds.complete("first").toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(deferred.get(5, TimeUnit.SECONDS)).isEqualTo("first");
    // the holder's completion may interleave with the waiter's lines: the waiter's alone
    assertThat(
            seen.stream()
                .filter(l -> !l.equals("complete ok") && !l.startsWith("end executed"))
                .toList())
        .contains("wait", "waited")
        .endsWith("end replayed");
  }

  @Test
  void theDeferredPathIsObservedUntilTheClaimIsSettled() throws Exception {
    IdempotencyPolicy p = policy("obs.deferred").build();
    CompletableFuture<String> work = new CompletableFuture<>();
    CompletableFuture<String> result =
        idem.executeDeferred(p, "k", null, () -> work).toCompletableFuture();
    work.complete("r");
    assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("r");
    assertThat(seen)
        .containsExactly(
            "start obs.deferred default method",
            "claim ok",
            "scope open",
            "scope closed",
            "complete ok",
            "end executed");

    seen.clear();
    IdempotencyClaim claim =
        idem.claim(policy("obs.cancelled").build(), "k")
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
    claim.release().toCompletableFuture().get(5, TimeUnit.SECONDS);
    // the call ends as cancelled; the release that follows is its last round trip
    assertThat(seen).endsWith("end cancelled", "release ok");

    seen.clear();
    idem.executeDeferred(p, "k", null, () -> CompletableFuture.completedFuture("x"))
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    assertThat(seen).endsWith("end replayed");
  }

  @Test
  void anObserverThatThrowsIsIgnoredAndTheCallGoesOn() throws Exception {
    Idempotency broken =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .observer(
                    (scope, s, adapter, digest) -> {
                      throw new IllegalStateException("observer bug");
                    })
                .build());
    assertThat(broken.execute(policy("obs.broken").build(), "k", () -> "r")).isEqualTo("r");
  }

  @Test
  void theAdapterIsThePolicysAndABadNameIsRefused() throws Exception {
    idem.execute(policy("obs.adapter").adapter("kafka").build(), "k", () -> "r");
    assertThat(seen.get(0)).isEqualTo("start obs.adapter default kafka");
    assertThatThrownBy(() -> policy("obs.adapter").adapter("Kafka Listener"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("adapter must be a short lower-case name");
  }

  @Test
  void withoutAnObserverNothingIsObserved() {
    assertThat(IdempotencyConfig.builder().defaultStore(store).build().observer())
        .isSameAs(IdempotencyObserver.NO_OP);
  }
}
