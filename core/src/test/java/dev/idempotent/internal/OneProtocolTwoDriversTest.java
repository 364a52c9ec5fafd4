package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyEvent.Type;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.OnDuplicate;
import dev.idempotent.RealClockStore;
import dev.idempotent.StoreFailurePolicy;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The blocking driver and the deferred driver carry out the same decision table ({@link
 * ClaimDecision}) and the same settlement ({@link Settlement}): each row gives the caller the same
 * answer and the listener the same events, whichever driver runs the call.
 */
class OneProtocolTwoDriversTest {
  enum Driver {
    BLOCKING {
      @Override
      Object call(
          IdempotencyExecutor executor, OperationPlan plan, String key, String fp, Callable<?> body)
          throws Throwable {
        return executor.execute(plan, key, fp, body::call);
      }
    },
    DEFERRED {
      @Override
      Object call(
          IdempotencyExecutor executor, OperationPlan plan, String key, String fp, Callable<?> body)
          throws Throwable {
        try {
          return executor
              .deferred()
              .execute(
                  plan,
                  key,
                  fp,
                  () -> {
                    try {
                      return CompletableFuture.completedFuture(body.call());
                    } catch (Exception e) {
                      return CompletableFuture.failedFuture(e);
                    }
                  })
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          throw e.getCause();
        }
      }
    };

    abstract Object call(
        IdempotencyExecutor executor, OperationPlan plan, String key, String fp, Callable<?> body)
        throws Throwable;
  }

  private final RealClockStore store = new RealClockStore();
  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  private IdempotencyConfig config(StoreFailurePolicy policy) {
    return IdempotencyConfig.builder()
        .defaultStore(store)
        .storeFailurePolicy(policy)
        .listener(e -> events.add(e.type()))
        .build();
  }

  /** One call: its value, or the failure it ended with. */
  private Object call(
      Driver driver, IdempotencyPolicy.Builder policy, String key, String fp, Callable<?> body) {
    return call(driver, StoreFailurePolicy.FAIL_CLOSED, policy, key, fp, body);
  }

  private Object call(
      Driver driver,
      StoreFailurePolicy failurePolicy,
      IdempotencyPolicy.Builder policy,
      String key,
      String fp,
      Callable<?> body) {
    IdempotencyConfig config = config(failurePolicy);
    OperationPlan plan =
        OperationPlan.of(
            policy.resultType(String.class).build(), config, driver == Driver.DEFERRED, null);
    try {
      return driver.call(new IdempotencyExecutor(config), plan, key, fp, body);
    } catch (Throwable t) {
      return t;
    }
  }

  private Callable<String> returning() {
    return () -> "v" + runs.incrementAndGet();
  }

  private Callable<String> throwing(RuntimeException failure) {
    return () -> {
      runs.incrementAndGet();
      throw failure;
    };
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void acquiredRunsAndRecordsACompletedKeyReplays(Driver driver) {
    IdempotencyPolicy.Builder policy = IdempotencyPolicy.builder("two.replay");
    assertThat(call(driver, policy, "k", null, returning())).isEqualTo("v1");
    assertThat(call(driver, policy, "k", null, returning())).isEqualTo("v1");
    assertThat(runs).hasValue(1);
    assertThat(events).containsExactly(Type.EXECUTED, Type.REPLAYED);
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void aCompletedKeyUnderRejectIsADuplicate(Driver driver) {
    IdempotencyPolicy.Builder policy =
        IdempotencyPolicy.builder("two.reject").onDuplicate(OnDuplicate.REJECT);
    call(driver, policy, "k", null, returning());
    assertThat(call(driver, policy, "k", null, returning()))
        .isInstanceOf(DuplicateRequestException.class);
    assertThat(runs).hasValue(1);
    assertThat(events).containsExactly(Type.EXECUTED, Type.REJECTED_DUPLICATE);
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void anotherPayloadIsAMismatch(Driver driver) {
    IdempotencyPolicy.Builder policy = IdempotencyPolicy.builder("two.mismatch");
    call(driver, policy, "k", Fingerprints.of("a"), returning());
    assertThat(call(driver, policy, "k", Fingerprints.of("b"), returning()))
        .isInstanceOf(IdempotencyKeyMismatchException.class);
    assertThat(events).containsExactly(Type.EXECUTED, Type.MISMATCH);
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void aKeyInProgressIsRejected(Driver driver) {
    IdempotencyPolicy.Builder policy = IdempotencyPolicy.builder("two.in-progress");
    IdempotencyConfig config = config(StoreFailurePolicy.FAIL_CLOSED);
    DeferredDriver.Claim holder =
        new IdempotencyExecutor(config)
            .deferred()
            .claim(OperationPlan.of(policy.build(), config, true, null), "k", null)
            .toCompletableFuture()
            .join();
    assertThat(call(driver, policy, "k", null, returning()))
        .isInstanceOf(IdempotencyInProgressException.class);
    holder.cancel(dev.idempotent.OnCancel.RELEASE).toCompletableFuture().join();
    assertThat(runs).hasValue(0);
    assertThat(events).containsExactly(Type.IN_PROGRESS, Type.CANCELLED);
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void aListedFailureIsRecordedAndReplayed(Driver driver) {
    IdempotencyPolicy.Builder policy =
        IdempotencyPolicy.builder("two.recorded").recordFailures(IllegalArgumentException.class);
    Object first = call(driver, policy, "k", null, throwing(new IllegalArgumentException("no")));
    Object again = call(driver, policy, "k", null, returning());
    assertThat((Throwable) first).isInstanceOf(IllegalArgumentException.class).hasMessage("no");
    assertThat((Throwable) again).isInstanceOf(IllegalArgumentException.class).hasMessage("no");
    assertThat(runs).hasValue(1);
    assertThat(events).containsExactly(Type.EXECUTED, Type.REPLAYED);
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void anUnlistedFailureReleasesTheKeySoARepeatRuns(Driver driver) {
    IdempotencyPolicy.Builder policy = IdempotencyPolicy.builder("two.released");
    IllegalStateException failure = new IllegalStateException("down");
    assertThat(call(driver, policy, "k", null, throwing(failure))).isSameAs(failure);
    assertThat(call(driver, policy, "k", null, returning())).isEqualTo("v2");
    assertThat(events).containsExactly(Type.EXECUTED);
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void anAmbiguousFailureUnderBlockBlocksTheKey(Driver driver) {
    IdempotencyPolicy.Builder policy =
        IdempotencyPolicy.builder("two.blocked").onAmbiguousFailure(OnAmbiguousFailure.BLOCK);
    call(driver, policy, "k", null, throwing(new IllegalStateException("unknown")));
    assertThat(call(driver, policy, "k", null, returning()))
        .isInstanceOf(IdempotencyBlockedException.class);
    assertThat(runs).hasValue(1);
    assertThat(events).containsExactly(Type.EXECUTED, Type.IN_PROGRESS);
  }

  @ParameterizedTest
  @EnumSource(Driver.class)
  void aStoreFailureFailsClosedOrRunsUnprotectedWhenFailOpen(Driver driver) {
    store.failClaims = new IllegalStateException("connection refused");
    IdempotencyPolicy.Builder policy = IdempotencyPolicy.builder("two.down");
    assertThat(call(driver, policy, "k", null, returning()))
        .isInstanceOf(IdempotencyStoreException.class);
    assertThat(runs).hasValue(0);
    assertThat(events).containsExactly(Type.STORE_ERROR);

    events.clear();
    assertThat(call(driver, StoreFailurePolicy.FAIL_OPEN, policy, "k", null, returning()))
        .isEqualTo("v1");
    assertThat(events).containsExactly(Type.STORE_ERROR, Type.FAIL_OPEN);
  }
}
