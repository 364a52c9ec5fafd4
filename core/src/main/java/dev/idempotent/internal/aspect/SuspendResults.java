package dev.idempotent.internal.aspect;

import dev.idempotent.OnCancel;
import dev.idempotent.internal.DeferredDriver;
import dev.idempotent.internal.Protocol;
import java.util.Arrays;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import kotlin.Result;
import kotlin.ResultKt;
import kotlin.Unit;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.ContinuationInterceptor;
import kotlin.coroutines.CoroutineContext;
import kotlin.coroutines.intrinsics.IntrinsicsKt;
import kotlin.coroutines.jvm.internal.BaseContinuationImpl;

/**
 * Kotlin {@code suspend} functions woven after kotlinc compiled them. Loaded only when such a
 * function is planned, so an application without Kotlin never touches it.
 *
 * <p>kotlinc compiles {@code suspend fun pay(id: String): Receipt} to {@code Object pay(String id,
 * Continuation<? super Receipt> completion)}, which returns the value, or {@code
 * COROUTINE_SUSPENDED} and later resumes {@code completion} with the value or a failure. One call:
 *
 * <ol>
 *   <li>The key and payload are derived from the arguments without the continuation (a key resolver
 *       gets the caller's {@code CoroutineContext} as {@code subscriberContext()}); a key that
 *       cannot be derived is thrown at once.
 *   <li>The claim, a wait for a key in progress and the settling use the store's non-blocking face
 *       ({@link DeferredDriver}): no thread is parked. A claim answered later than the call is
 *       handed to the caller's dispatcher (its {@code ContinuationInterceptor}) before anything
 *       else runs, so the body never runs on a store's thread.
 *   <li>Claimed: the body runs with a continuation of the library's ({@link Completion}, with the
 *       caller's context) in place of the caller's, so its outcome is seen whether it returns at
 *       once or resumes later. A value is recorded, a {@code CancellationException} settles the
 *       claim by the function's {@link OnCancel}, any other exception is settled as a thrown one
 *       (recorded when listed, else released).
 *   <li>The caller gets the value or the exception directly when all of that finished within the
 *       call (a replay on the memory store, a body that did not suspend); else the function returns
 *       {@code COROUTINE_SUSPENDED} and the caller's continuation is resumed, through its
 *       dispatcher ({@code intercepted()}), once the outcome is settled.
 * </ol>
 *
 * <p>The woven method is entered again each time its own state machine resumes after a suspension
 * point: kotlinc's continuation object calls the method with itself as the last argument. Such an
 * entry (the continuation's completion is this call's {@link Completion}) is the body going on, and
 * proceeds untouched. A consequence: a function that calls itself directly from its own body cannot
 * be told from that, and the inner call is not protected.
 *
 * <p>The wait for a key in progress does not watch the caller's {@code Job}: a coroutine cancelled
 * while it waits resumes when the wait ends (the key settles, or the wait timeout), and sees its
 * cancellation at its next suspension point.
 */
final class SuspendResults {
  private static final int UNDECIDED = 0;
  private static final int SUSPENDED = 1;
  private static final int RETURNED = 2;

  private SuspendResults() {}

  @SuppressWarnings("unchecked")
  static Object call(MethodPlan method, Object target, Object[] args, MethodPlan.Proceed proceed)
      throws Throwable {
    int last = args.length - 1;
    Continuation<Object> caller = (Continuation<Object>) args[last];
    if (caller instanceof BaseContinuationImpl frame
        && frame.getCompletion() instanceof Completion running
        && running.call.method == method) {
      return proceed.proceed(args);
    }
    CoroutineContext context = caller.getContext();
    Object[] arguments = Arrays.copyOf(args, last);
    MethodPlan.Resolved r = method.resolved();
    String key = method.key(r, target, arguments, context);
    String fingerprint = method.fingerprint(arguments);
    Call call = new Call(method, args, proceed, context);
    CompletableFuture<DeferredDriver.Claim> claimed =
        r.executor().deferred().claim(r.plan(), key, fingerprint).toCompletableFuture();
    if (claimed.isDone()) {
      call.claimed(claimed);
    } else {
      claimed.whenComplete((ignored, error) -> dispatch(context, () -> call.claimed(claimed)));
    }
    return call.result(caller);
  }

  /** Runs {@code work} on the dispatcher of {@code context}, or here when it has none. */
  private static void dispatch(CoroutineContext context, Runnable work) {
    ContinuationInterceptor interceptor = context.get(ContinuationInterceptor.Key);
    Continuation<Object> task =
        new Continuation<>() {
          @Override
          public CoroutineContext getContext() {
            return context;
          }

          @Override
          public void resumeWith(Object ignored) {
            work.run();
          }
        };
    (interceptor == null ? task : interceptor.interceptContinuation(task))
        .resumeWith(Unit.INSTANCE);
  }

  /** One call: its claim, its body's outcome, and how the caller gets it. */
  private static final class Call {
    final MethodPlan method;
    final Object[] args;
    final MethodPlan.Proceed proceed;
    final CoroutineContext context;
    final CompletableFuture<Object> outcome = new CompletableFuture<>();
    final AtomicInteger decision = new AtomicInteger(UNDECIDED);
    Object value;
    Throwable failure;

    Call(MethodPlan method, Object[] args, MethodPlan.Proceed proceed, CoroutineContext context) {
      this.method = method;
      this.args = args;
      this.proceed = proceed;
      this.context = context;
    }

    void claimed(CompletableFuture<DeferredDriver.Claim> claimed) {
      DeferredDriver.Claim claim;
      try {
        claim = claimed.join();
      } catch (CompletionException | CancellationException e) {
        outcome.completeExceptionally(Protocol.unwrap(e));
        return;
      }
      if (!claim.runs()) {
        if (claim.replaysFailure()) {
          outcome.completeExceptionally(claim.replayedFailure());
        } else {
          Object replayed = claim.replayedValue();
          outcome.complete(replayed == null && method.resumesWithUnit() ? Unit.INSTANCE : replayed);
        }
        return;
      }
      Object[] withCompletion = args.clone();
      withCompletion[withCompletion.length - 1] = new Completion(this, claim);
      Object returned;
      try {
        returned = proceed.proceed(withCompletion);
      } catch (Throwable t) {
        failed(claim, t);
        return;
      }
      if (returned != IntrinsicsKt.getCOROUTINE_SUSPENDED()) {
        completed(claim, returned);
      }
    }

    void completed(DeferredDriver.Claim claim, Object returned) {
      Object recorded = method.resumesWithUnit() ? null : returned;
      claim
          .complete(recorded)
          .whenComplete(
              (ignored, error) -> {
                if (error == null) {
                  outcome.complete(returned);
                } else {
                  outcome.completeExceptionally(Protocol.unwrap(error));
                }
              });
    }

    void failed(DeferredDriver.Claim claim, Throwable thrown) {
      if (thrown instanceof CancellationException) {
        OnCancel onCancel = method.onCancel();
        claim
            .cancel(onCancel)
            .whenComplete((ignored, error) -> outcome.completeExceptionally(thrown));
        return;
      }
      claim
          .fail(thrown)
          .whenComplete(
              (delivered, error) ->
                  outcome.completeExceptionally(
                      error != null ? Protocol.unwrap(error) : delivered));
    }

    /**
     * The value or exception when the outcome is already there, else {@code COROUTINE_SUSPENDED},
     * and {@code caller} is resumed when it comes: exactly one of the two, whichever thread
     * completes the outcome.
     */
    Object result(Continuation<Object> caller) throws Throwable {
      outcome.whenComplete(
          (v, e) -> {
            value = v;
            failure = e;
            if (decision.compareAndSet(UNDECIDED, RETURNED)) {
              return;
            }
            IntrinsicsKt.intercepted(caller).resumeWith(e == null ? v : ResultKt.createFailure(e));
          });
      if (decision.compareAndSet(UNDECIDED, SUSPENDED)) {
        return IntrinsicsKt.getCOROUTINE_SUSPENDED();
      }
      if (failure != null) {
        throw failure;
      }
      return value;
    }
  }

  /** The continuation the body runs with: what it resumes with settles the claim. */
  private static final class Completion implements Continuation<Object> {
    final Call call;
    final DeferredDriver.Claim claim;

    Completion(Call call, DeferredDriver.Claim claim) {
      this.call = call;
      this.claim = claim;
    }

    @Override
    public CoroutineContext getContext() {
      return call.context;
    }

    @Override
    public void resumeWith(Object result) {
      if (result instanceof Result.Failure f) {
        call.failed(claim, f.exception);
      } else {
        call.completed(claim, result);
      }
    }
  }
}
