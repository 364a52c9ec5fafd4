package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyInterruptedException;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyStore;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The blocking driver: runs a call on the calling thread, which waits for each store answer and
 * sleeps in the store's {@code awaitChange} while another call holds the key. The woven aspect and
 * the programmatic API both call it; {@link #deferred()} is the driver for work whose result
 * arrives later.
 *
 * <pre>
 *   Protocol.begin (a blank key is refused; an interrupted thread is refused before any store call)
 *   loop: claim (fresh owner token) -> ClaimDecision
 *           WAIT   -> awaitChange (at most the decision's pause), claim again
 *   RUN             -> Settlement starts renewal; run the body on this thread;
 *                      returned: complete(value); threw: fail(failure), rethrow what it gives;
 *                      a CompletionStage result (async plan): settled when the stage completes
 *   RUN_UNPROTECTED -> run the body (fail-open), inside the call's observation, which ends when
 *                      the body (or the stage it returns, for an async plan) does
 *   REPLAY_VALUE    -> the value, through the replay hook
 *   REPLAY_FAILURE  -> rethrow it
 *   REFUSE          -> throw it
 *   thread interrupted before the method ran (claim or wait failed with the flag set or an
 *   interrupt as cause) -> IdempotencyInterruptedException, flag kept, a claim that may have
 *   reached the store released; never a store failure
 *   thread interrupted after the method ran -> complete/release run anyway (flag cleared for them,
 *   set again)
 * </pre>
 *
 * What each step decides is written once, in {@link ClaimDecision} and {@link Settlement}; this
 * class only carries values on the calling thread. For an async plan a replayed outcome is returned
 * as a completed stage; refusals are thrown.
 */
public final class IdempotencyExecutor {
  /** Per thread (JDK types only, so a class loader is never held by a pooled thread's map). */
  private static final ThreadLocal<CallState> STATE = ThreadLocal.withInitial(CallState::new);

  /** What this thread's calls leave behind: the claims it runs, and how its last call ended. */
  private static final class CallState {
    /** The owner tokens of the claims whose methods this thread runs, innermost last. */
    final List<String> held = new ArrayList<>();

    /** Whether this thread's last call was answered with a recorded outcome. */
    boolean replayed;
  }

  /**
   * Whether the last call this thread made, woven or programmatic, returned or threw a recorded
   * outcome instead of running (for a method returning a {@code CompletionStage}: whether the stage
   * it returned holds a recorded outcome). {@code false} before any call, after a first run, and
   * after a call the library refused.
   */
  public static boolean lastCallReplayed() {
    return STATE.get().replayed;
  }

  /** The method body, as the aspect or the programmatic API hands it over. */
  @FunctionalInterface
  public interface Body {
    Object run() throws Throwable;
  }

  /** The store, called on the calling thread; completions and releases despite an interrupt. */
  private static final Call.StoreIo BLOCKING =
      new Call.StoreIo() {
        @Override
        public CompletionStage<ClaimResult> claim(Call call, String owner) {
          return CompletableFuture.completedFuture(
              call.plan.store.claim(call.key, owner, call.fingerprint, call.plan.lease));
        }

        @Override
        public CompletionStage<Boolean> complete(Call call, String owner, byte[] outcome) {
          IdempotencyStore store = call.plan.store;
          return answer(() -> store.complete(call.key, owner, outcome, call.plan.ttl));
        }

        @Override
        public CompletionStage<Boolean> release(Call call, String owner) {
          IdempotencyStore store = call.plan.store;
          return answer(() -> store.release(call.key, owner));
        }

        private CompletionStage<Boolean> answer(Supplier<Boolean> write) {
          try {
            return CompletableFuture.completedFuture(despiteInterrupt(write));
          } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
          }
        }
      };

  private final Protocol protocol;
  private final DeferredDriver deferred;

  /**
   * One executor per configuration: {@link dev.idempotent.Idempotency} makes it, woven calls share
   * it.
   */
  public IdempotencyExecutor(IdempotencyConfig config) {
    this(config, LeaseRenewer.shared());
  }

  IdempotencyExecutor(IdempotencyConfig config, LeaseRenewer renewer) {
    this.protocol = new Protocol(config, renewer);
    this.deferred = new DeferredDriver(protocol);
    OwnerTokens.prepare();
  }

  /** The same protocol for work whose result arrives later, without blocking. */
  public DeferredDriver deferred() {
    return deferred;
  }

  /**
   * Runs {@code body} at most once per {@code rawKey} in the plan's scope.
   *
   * @param fingerprint the payload fingerprint, or {@code null} for no payload check
   */
  public Object execute(OperationPlan plan, String rawKey, String fingerprint, Body body)
      throws Throwable {
    Call call = protocol.begin(plan, rawKey, fingerprint, BLOCKING);
    CallState state = STATE.get();
    state.replayed = false;
    if (Thread.currentThread().isInterrupted()) {
      // Decided before any store call: whether a store would still answer on an interrupted thread
      // varies (Redisson sometimes does, sometimes cancels), and the caller must get the same
      // answer every time.
      throw interrupted(call, "before the call", null);
    }
    String owner = OwnerTokens.next();
    ClaimDecision decision = claim(call, owner);
    while (decision.action() == ClaimDecision.Action.WAIT) {
      try {
        call.awaitChange(decision.pauseNanos());
        owner = OwnerTokens.next();
        decision = claim(call, owner);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw interrupted(call, "while waiting for the call that holds the key", e);
      } catch (RuntimeException e) {
        if (isInterrupt(e)) {
          Thread.currentThread().interrupt();
          throw interrupted(call, "while waiting for the call that holds the key", e);
        }
        decision = ClaimDecision.storeFailed(call, e);
      }
    }
    switch (decision.action()) {
      case RUN:
        return runClaimed(call, call.held(owner), body);
      case RUN_UNPROTECTED:
        return runUnprotected(call, body);
      case REPLAY_VALUE:
        if (plan.async) {
          state.replayed = true;
          try {
            return CompletableFuture.completedFuture(call.replayedValue(decision.value()));
          } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
          }
        }
        Object value = call.replayedValue(decision.value());
        state.replayed = true;
        return value;
      case REPLAY_FAILURE:
        state.replayed = true;
        if (plan.async) {
          return CompletableFuture.failedFuture(decision.failure());
        }
        throw decision.failure();
      default:
        throw decision.failure();
    }
  }

  /**
   * One claim and its decision. A claim that failed because the calling thread was interrupted is
   * no store failure: the caller gets {@link IdempotencyInterruptedException} whatever the policy,
   * and the claim, which may have reached the store, is released.
   */
  private ClaimDecision claim(Call call, String owner) {
    ClaimResult answer;
    try {
      answer = now(call.claim(owner));
    } catch (RuntimeException e) {
      if (!isInterrupt(e)) {
        return ClaimDecision.storeFailed(call, e);
      }
      Thread.currentThread().interrupt();
      try {
        now(call.release(owner)); // fenced (false) when the claim never got there
      } catch (RuntimeException releaseFailure) {
        Protocol.LOG.debug(
            "releasing the interrupted claim of {} failed; a claim that got there ends with its"
                + " lease: {}",
            call.key,
            Protocol.describe(releaseFailure));
      }
      throw interrupted(call, "while claiming the key", e);
    }
    return ClaimDecision.decide(call, answer, IdempotencyExecutor::heldByThisThread);
  }

  private static IdempotencyInterruptedException interrupted(
      Call call, String when, Throwable cause) {
    call.ended(Call.Outcome.REFUSED, cause);
    return new IdempotencyInterruptedException(
        "the calling thread was interrupted "
            + when
            + ", so the call did not run; its interrupt flag is still set",
        call.key.scope(),
        call.key.redactedKey(),
        cause);
  }

  /**
   * Whether a store failure comes from an interrupt of the calling thread: the flag is set, or the
   * cause chain holds an {@link InterruptedException} (Redisson throws one wrapped in its own
   * exception, and sets the flag again), a {@link ClosedByInterruptException} or a plain {@link
   * InterruptedIOException} (not its subclass {@code SocketTimeoutException}).
   */
  static boolean isInterrupt(Throwable e) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    int depth = 0;
    for (Throwable t = e;
        t != null && depth < 32;
        t = t.getCause() == t ? null : t.getCause(), depth++) {
      if (t instanceof InterruptedException
          || t instanceof ClosedByInterruptException
          || t.getClass() == InterruptedIOException.class) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs a store write that must happen even on an interrupted thread, because the method already
   * ran (or, for the release of an interrupted claim, because it may have reached the store): with
   * the interrupt flag set, or when the write fails because of an interrupt, the flag is cleared
   * for one attempt and then set again. The store's owner-checked writes answer a repeat of a write
   * that had been applied truthfully.
   */
  private static <T> T despiteInterrupt(Supplier<T> write) {
    if (!Thread.currentThread().isInterrupted()) {
      try {
        return write.get();
      } catch (RuntimeException e) {
        if (!isInterrupt(e)) {
          throw e;
        }
      }
    }
    Thread.interrupted();
    try {
      return write.get();
    } finally {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The value of a stage of this driver, which is done when returned (its store calls answered on
   * this thread), or its failure thrown as it is.
   */
  private static <T> T now(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      Throwable cause = Protocol.unwrap(e);
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /**
   * Runs the body of a fail-open call, which holds no claim: the call's observation is current
   * while it runs and ends when it returned or threw (for an async plan, when its stage completes).
   */
  private static Object runUnprotected(Call call, Body body) throws Throwable {
    Object value;
    try (IdempotencyObserver.Scope scope = call.openScope()) {
      value = body.run();
    } catch (Throwable t) {
      call.unprotectedEnded(t);
      throw t;
    } finally {
      STATE.get().replayed = false;
    }
    if (call.plan.async && value instanceof CompletionStage<?> stage) {
      stage.whenComplete(
          (v, error) -> call.unprotectedEnded(error == null ? null : Protocol.unwrap(error)));
    } else {
      call.unprotectedEnded(null);
    }
    return value;
  }

  /** Runs the body of a claim this thread holds, then settles the claim. */
  private Object runClaimed(Call call, Settlement held, Body body) throws Throwable {
    Object value;
    CallState state = STATE.get();
    List<String> claims = state.held;
    claims.add(held.owner());
    try (IdempotencyObserver.Scope scope = held.openScope()) {
      value = body.run();
    } catch (Throwable t) {
      throw now(held.fail(t));
    } finally {
      claims.remove(claims.size() - 1);
      state.replayed = false; // a call nested in the body may have been a replay; this one is not
    }
    if (call.plan.async && value instanceof CompletionStage<?> stage) {
      CompletableFuture<Object> out = new CompletableFuture<>();
      stage.whenComplete(
          (v, err) -> {
            if (err != null) {
              Throwable failure = Protocol.unwrap(err);
              held.fail(failure)
                  .thenAccept(
                      thrown -> out.completeExceptionally(thrown == failure ? err : thrown));
            } else {
              held.complete(v, Integer.MAX_VALUE)
                  .whenComplete(
                      (recorded, notRecorded) -> {
                        if (notRecorded != null) {
                          // the outcome belonged to the caller's transaction and was not recorded
                          out.completeExceptionally(Protocol.unwrap(notRecorded));
                        } else {
                          out.complete(v);
                        }
                      });
            }
          });
      return out;
    }
    return now(held.complete(value, Integer.MAX_VALUE));
  }

  /**
   * True when {@code ownerToken} is the claim of a call this thread is running (a nested call
   * re-entered it).
   */
  private static boolean heldByThisThread(String ownerToken) {
    return ownerToken != null && STATE.get().held.contains(ownerToken);
  }
}
