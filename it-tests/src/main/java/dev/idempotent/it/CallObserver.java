package dev.idempotent.it;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyListener;
import dev.idempotent.IdempotencyStoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Classifies calls of the service into {@link CallOutcome}s. Install it as the configuration's
 * listener: events arrive on the calling thread, so the observer knows how each call's completion
 * went.
 */
public final class CallObserver implements IdempotencyListener {
  private static final ThreadLocal<List<IdempotencyEvent.Type>> EVENTS =
      ThreadLocal.withInitial(ArrayList::new);

  private final AtomicLong fenced = new AtomicLong();

  @Override
  public void onEvent(IdempotencyEvent event) {
    EVENTS.get().add(event.type());
    if (event.type() == IdempotencyEvent.Type.FENCED) {
      fenced.incrementAndGet();
    }
  }

  /**
   * How many FENCED events were seen, on any thread (the lease renewer reports lost leases on its
   * own thread).
   */
  public long fencedEvents() {
    return fenced.get();
  }

  /** Runs one call and says what it got. Never throws. */
  public CallOutcome observe(String key, Supplier<LedgerReceipt> call) {
    EVENTS.get().clear();
    LedgerService.takeExecutedMark();
    long start = System.nanoTime();
    LedgerReceipt receipt = null;
    RuntimeException error = null;
    try {
      receipt = call.get();
    } catch (RuntimeException e) {
      error = e;
    }
    long micros = (System.nanoTime() - start) / 1_000;
    boolean executed = LedgerService.takeExecutedMark();
    List<IdempotencyEvent.Type> events = new ArrayList<>(EVENTS.get());
    String completion =
        events.contains(IdempotencyEvent.Type.EXECUTED)
                || events.contains(IdempotencyEvent.Type.RECORDED_FAILURE)
            ? "recorded"
            : events.contains(IdempotencyEvent.Type.FENCED)
                ? "fenced"
                : events.contains(IdempotencyEvent.Type.STORE_ERROR) ? "failed" : "unknown";
    return outcome(key, receipt, error, micros, executed, completion);
  }

  /**
   * Runs one call of a {@code Mono} method, subscribed and awaited on this thread, and says what it
   * got. Its events arrive on other threads, so whether its body ran is told by the call's own mark
   * ({@link LedgerService#takeExecutedCall}); a {@code Mono} signals its value only once the
   * outcome is recorded, so a body that ran and delivered its value counts as recorded. Never
   * throws.
   */
  public CallOutcome observeReactive(
      String key,
      java.util.function.Function<String, reactor.core.publisher.Mono<LedgerReceipt>> call) {
    String callId = java.util.UUID.randomUUID().toString();
    long start = System.nanoTime();
    LedgerReceipt receipt = null;
    RuntimeException error = null;
    try {
      receipt = call.apply(callId).block(java.time.Duration.ofMinutes(1));
    } catch (RuntimeException e) {
      error = e;
    }
    long micros = (System.nanoTime() - start) / 1_000;
    boolean executed = LedgerService.takeExecutedCall(callId);
    return outcome(key, receipt, error, micros, executed, "recorded");
  }

  private static CallOutcome outcome(
      String key,
      LedgerReceipt receipt,
      RuntimeException error,
      long micros,
      boolean executed,
      String completion) {
    if (executed) {
      if (error != null) {
        return new CallOutcome(
            key, CallOutcome.Kind.OTHER, "-", micros, "the body ran and threw: " + error);
      }
      return new CallOutcome(key, CallOutcome.Kind.EXECUTED, receipt.digest(), micros, completion);
    }
    if (error == null) {
      return new CallOutcome(key, CallOutcome.Kind.REPLAYED, receipt.digest(), micros, "-");
    }
    if (error instanceof IdempotencyInProgressException) {
      return new CallOutcome(key, CallOutcome.Kind.IN_PROGRESS, "-", micros, "-");
    }
    if (error instanceof DuplicateRequestException) {
      return new CallOutcome(key, CallOutcome.Kind.DUPLICATE, "-", micros, "-");
    }
    if (error instanceof IdempotencyStoreException) {
      return new CallOutcome(
          key, CallOutcome.Kind.STORE_ERROR, "-", micros, String.valueOf(error.getCause()));
    }
    return new CallOutcome(key, CallOutcome.Kind.OTHER, "-", micros, error.toString());
  }
}
