package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.Idempotent;
import dev.idempotent.OnCancel;
import dev.idempotent.RealClockStore;
import java.lang.reflect.Method;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import kotlin.Result;
import kotlin.ResultKt;
import kotlin.Unit;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlin.coroutines.EmptyCoroutineContext;
import kotlin.coroutines.intrinsics.IntrinsicsKt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kotlin {@code suspend} functions as kotlinc compiles them ({@code Object f(args...,
 * Continuation)} returning the value or {@code COROUTINE_SUSPENDED}), written here in Java and
 * called the way the woven aspect calls them. The examples-kotlin module runs real Kotlin through
 * the woven aspect.
 */
@Timeout(30)
class SuspendResultsTest {
  private static final Object SUSPENDED = IntrinsicsKt.getCOROUTINE_SUSPENDED();
  private final RealClockStore store = new RealClockStore();
  private final Payments payments = new Payments();

  @BeforeEach
  void install() {
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  static final class Payments {
    final AtomicInteger runs = new AtomicInteger();
    final AtomicReference<Continuation<Object>> parked = new AtomicReference<>();

    /** {@code suspend fun now(id: String): String} that does not suspend. */
    @Idempotent(key = "#id")
    Object now(String id, Continuation<? super String> completion) {
      return "paid " + id + " #" + runs.incrementAndGet();
    }

    /** {@code suspend fun later(id: String): String} that suspends until the test resumes it. */
    @SuppressWarnings("unchecked")
    @Idempotent(key = "#id", onCancel = OnCancel.RELEASE)
    Object later(String id, Continuation<? super String> completion) {
      runs.incrementAndGet();
      parked.set((Continuation<Object>) completion);
      return SUSPENDED;
    }

    /**
     * {@code suspend fun all(id: String, amount: Long): String}, payload digesting the arguments.
     */
    @Idempotent(payload = "*")
    Object all(String id, long amount, Continuation<? super String> completion) {
      return id + amount + " #" + runs.incrementAndGet();
    }

    /** {@code suspend fun unit(id: String)}: returns {@code Unit}. */
    @Idempotent(key = "#id")
    Object unit(String id, Continuation<? super Unit> completion) {
      runs.incrementAndGet();
      return Unit.INSTANCE;
    }

    @Idempotent(key = "#completion")
    Object sees(String id, Continuation<? super String> completion) {
      return id;
    }
  }

  /** A caller's continuation: what it is resumed with. */
  static final class Caller implements Continuation<Object> {
    final CompletableFuture<Object> resumed = new CompletableFuture<>();

    @Override
    public CoroutineContext getContext() {
      return EmptyCoroutineContext.INSTANCE;
    }

    @Override
    public void resumeWith(Object result) {
      if (result instanceof Result.Failure f) {
        resumed.completeExceptionally(f.exception);
      } else {
        resumed.complete(result);
      }
    }
  }

  private Object call(String name, Object... args) throws Throwable {
    Method m = null;
    for (Method candidate : Payments.class.getDeclaredMethods()) {
      if (candidate.getName().equals(name)) {
        m = candidate;
      }
    }
    Method method = m;
    method.setAccessible(true);
    MethodPlan plan = plans.computeIfAbsent(name, n -> new MethodPlan(method, null));
    return plan.invokeWith(payments, args, a -> method.invoke(payments, a));
  }

  private final java.util.Map<String, MethodPlan> plans = new java.util.HashMap<>();

  /**
   * What the caller gets: the value returned, or (the store answering the claim on a thread of its
   * own) the value its continuation is resumed with.
   */
  private Object await(String name, Object... args) throws Throwable {
    Caller caller = new Caller();
    Object[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length] = caller;
    Object returned = call(name, all);
    if (returned != SUSPENDED) {
      return returned;
    }
    try {
      return caller.resumed.get(5, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause();
    }
  }

  /** Starts a call of {@code later} and waits until its body has parked its continuation. */
  private Caller parked(String id) throws Throwable {
    payments.parked.set(null);
    Caller caller = new Caller();
    assertThat(call("later", id, caller)).isSameAs(SUSPENDED);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (payments.parked.get() == null && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertThat(payments.parked.get()).as("the body ran and suspended").isNotNull();
    return caller;
  }

  @Test
  void aFunctionThatDoesNotSuspendReturnsItsValueAndARepeatReplaysIt() throws Throwable {
    assertThat(await("now", "a")).isEqualTo("paid a #1");
    assertThat(await("now", "a")).isEqualTo("paid a #1");
    assertThat(payments.runs).hasValue(1);
  }

  @Test
  void aSuspendedBodyResumesTheCallerWhenItEndsAndIsRecorded() throws Throwable {
    Caller first = parked("b");
    assertThat(first.resumed).isNotDone();
    payments.parked.get().resumeWith("paid b");
    assertThat(first.resumed.get(5, TimeUnit.SECONDS)).isEqualTo("paid b");
    assertThat(await("later", "b")).isEqualTo("paid b");
    assertThat(payments.runs).hasValue(1);
  }

  @Test
  void aFailureResumesTheCallerWithItAndReleasesTheKey() throws Throwable {
    Caller first = parked("c");
    IllegalStateException declined = new IllegalStateException("declined");
    payments.parked.get().resumeWith(ResultKt.createFailure(declined));
    assertThatThrownBy(() -> first.resumed.get(5, TimeUnit.SECONDS)).hasCause(declined);
    parked("c");
    assertThat(payments.runs).hasValue(2);
  }

  @Test
  void aCancellationReleasesTheKeyWithOnCancelReleaseAndReachesTheCallerUnchanged()
      throws Throwable {
    Caller first = parked("d");
    CancellationException cancelled = new CancellationException("gone");
    payments.parked.get().resumeWith(ResultKt.createFailure(cancelled));
    assertThatThrownBy(() -> first.resumed.get(5, TimeUnit.SECONDS)).isSameAs(cancelled);
    parked("d");
    assertThat(payments.runs).hasValue(2);
  }

  @Test
  void aPayloadOfAllArgumentsLeavesTheContinuationOut() throws Throwable {
    assertThat(await("all", "e", 5L)).isEqualTo("e5 #1");
    assertThat(await("all", "e", 5L)).isEqualTo("e5 #1");
    assertThat(payments.runs).hasValue(1);
  }

  @Test
  void unitIsRecordedAsNothingAndReplayedAsUnit() throws Throwable {
    assertThat(await("unit", "f")).isSameAs(Unit.INSTANCE);
    assertThat(await("unit", "f")).isSameAs(Unit.INSTANCE);
    assertThat(payments.runs).hasValue(1);
  }

  @Test
  void aKeyExpressionCannotNameTheContinuation() {
    assertThatThrownBy(() -> await("sees", "g"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("key = \"#completion\"");
  }
}
