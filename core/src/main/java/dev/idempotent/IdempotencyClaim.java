package dev.idempotent;

import dev.idempotent.internal.DeferredDriver;
import java.util.concurrent.CompletionStage;

/**
 * A key claimed for work that the caller runs and settles itself, for an adapter whose unit of work
 * the library does not call as one body: the records of a Kafka batch, run by one listener call.
 * {@link Idempotency#claim} gives it; the protocol is the one of every call (see {@link
 * Idempotency}): the lease is renewed while the claim is held.
 *
 * <p>When {@link #runs()}, the caller runs the work and then settles the claim with exactly one of
 * {@link #complete}, {@link #fail} or {@link #release}; a claim never settled ends with its lease
 * at the latest ({@code maxHold}). Otherwise the key has a recorded outcome, which {@link
 * #replayedValue()} or {@link #replayedFailure()} gives, and settling does nothing.
 */
public final class IdempotencyClaim {
  private final DeferredDriver.Claim claim;

  IdempotencyClaim(DeferredDriver.Claim claim) {
    this.claim = claim;
  }

  /** Whether the caller runs the work (the key was claimed, or the store is down and fail-open). */
  public boolean runs() {
    return claim.runs();
  }

  /** Whether the key's recorded outcome is a failure ({@link #replayedFailure()}). */
  public boolean replaysFailure() {
    return claim.replaysFailure();
  }

  /** The recorded value of a completed key ({@code null} for a recorded {@code null}). */
  public Object replayedValue() {
    return claim.replayedValue();
  }

  /** The recorded failure of a completed key, to be rethrown. */
  public Throwable replayedFailure() {
    return claim.replayedFailure();
  }

  /**
   * The work returned {@code value}: records it. The stage completes with {@code value} once it is
   * recorded; it fails only when the store must fail the call.
   */
  public CompletionStage<Object> complete(Object value) {
    return claim.complete(value);
  }

  /**
   * The work failed: records {@code failure} when the settings list it, else settles it as {@code
   * onAmbiguousFailure} says (released by default). The stage completes with what the caller
   * rethrows: {@code failure} (a settling failure suppressed in it), or the store's exception when
   * the store must fail the call.
   */
  public CompletionStage<Throwable> fail(Throwable failure) {
    return claim.fail(failure);
  }

  /** The work did not run (or its outcome is not to be kept): the key is released. */
  public CompletionStage<Void> release() {
    return claim.cancel(OnCancel.RELEASE);
  }
}
