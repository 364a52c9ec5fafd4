package dev.idempotent.messaging;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyAmbiguousOutcomeException;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyClaim;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a message consumer's handler at most once per {@link MessageKey}, on the core's protocol
 * (claim, run, record, replay; {@link Idempotency#execute}): what every broker adapter calls for
 * each delivery.
 *
 * <pre>{@code
 * MessageIdempotency orders = MessageIdempotency.builder("orders.consumer").build();
 * MessageOutcome outcome = orders.handle(key, () -> book(order));
 * }</pre>
 *
 * <ul>
 *   <li>A first delivery runs the handler and records its outcome: {@link
 *       MessageOutcome#PROCESSED}. The adapter acknowledges the message after that, so the
 *       acknowledgement follows the record.
 *   <li>A delivery whose key has a recorded outcome does not run the handler: {@link
 *       MessageOutcome#REPLAYED}; the adapter acknowledges it.
 *   <li>A delivery whose key is held by a delivery still running waits up to {@link
 *       Builder#inProgressWait} (replayed if the holder completes in that time, run if it releases)
 *       and then answers {@link MessageOutcome#IN_PROGRESS}: the adapter hands the message back to
 *       the broker, neither as an error nor as a dead letter.
 *   <li>A handler that throws: the claim is settled as the settings say (released by default, so
 *       the next delivery runs the handler again; see {@link
 *       IdempotencySettings.AbstractBuilder#recordFailures} and {@code onAmbiguousFailure}) and the
 *       exception is rethrown unchanged, to the container's retries and dead-lettering. A container
 *       wraps a listener's exception in exceptions of its own (a listener-execution failure, a
 *       retry recoverer's rejection) before an adapter sees it, so a failure is recorded when it or
 *       one of its causes is one of the recorded failures: that cause is what is recorded and
 *       replayed, and the exception as thrown is what this delivery rethrows.
 *   <li>A delivery whose key is blocked ({@code onAmbiguousFailure = BLOCK} after an earlier
 *       delivery failed ambiguously): the handler does not run and {@link
 *       dev.idempotent.IdempotencyBlockedException} is thrown at once, without a wait. It is a
 *       final failure like a replayed recorded one ({@link #isRecordedFailure} is true for it): no
 *       delivery will ever finish the key, so the adapter hands the message to dead-lettering or
 *       its error handler, never back to the broker for another delivery.
 * </ul>
 *
 * Records are filed under the scope the application names (its consumer, queue or group), never
 * under text a message chooses. A repeat of a completed key always replays: {@code onDuplicate} and
 * {@code onInProgress} of the settings are not used.
 */
public final class MessageIdempotency {
  /** How long a delivery waits by default for another delivery of its key before handing back. */
  public static final Duration DEFAULT_IN_PROGRESS_WAIT = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(MessageIdempotency.class);

  /**
   * How deep a failure's causes are searched for a recorded one (a container wraps a few times).
   */
  private static final int MAX_CAUSE_DEPTH = 16;

  private final Idempotency idempotency;
  private final IdempotencyPolicy policy;
  private final Duration inProgressWait;

  private MessageIdempotency(Builder b) {
    this.idempotency = b.idempotency;
    this.inProgressWait = b.inProgressWait;
    this.policy = policy(b.scope, b.settings, b.inProgressWait, IdempotencyPolicy.METHOD_ADAPTER);
  }

  private MessageIdempotency(MessageIdempotency base, String adapter) {
    this.idempotency = base.idempotency;
    this.inProgressWait = base.inProgressWait;
    this.policy = policy(base.scope(), base.settings(), base.inProgressWait, adapter);
  }

  private static IdempotencyPolicy policy(
      String scope, IdempotencySettings settings, Duration inProgressWait, String adapter) {
    return IdempotencyPolicy.builder(scope)
        .settings(settings)
        .onDuplicate(OnDuplicate.REPLAY)
        .onInProgress(OnInProgress.WAIT)
        .waitTimeout(inProgressWait)
        .resultType(Void.class)
        .withoutReplayHook() // a message's outcome is nothing, not a method's value
        .adapter(adapter)
        .build();
  }

  /**
   * The same consumer, its calls named by {@code adapter} in observations ({@code kafka}, {@code
   * rabbit}, {@code camel}); the broker adapters call it on what they are given.
   */
  public MessageIdempotency withAdapter(String adapter) {
    return adapter.equals(policy.adapter()) ? this : new MessageIdempotency(this, adapter);
  }

  /**
   * @param scope what the records are filed under: name the consumer, for example {@code
   *     orders.consumer} or the queue or consumer group it reads
   */
  public static Builder builder(String scope) {
    return new Builder(scope);
  }

  /** The scope the records are filed under. */
  public String scope() {
    return policy.scope();
  }

  /**
   * The policy every call of this consumer runs under: its scope and settings, a repeat of a
   * completed key replayed, a key in progress waited for up to {@link #inProgressWait()}, no
   * result, no {@link dev.idempotent.ReplayHook}. For an adapter that claims through {@link
   * Idempotency#claim} itself and settles the claim when its framework says how the delivery ended.
   */
  public IdempotencyPolicy policy() {
    return policy;
  }

  /** The store name, durations and failure handling the calls use. */
  public IdempotencySettings settings() {
    return policy.settings();
  }

  /** How long a delivery waits for another delivery of its key before it is handed back. */
  public Duration inProgressWait() {
    return inProgressWait;
  }

  /**
   * The instance the calls run on: the one given to the builder, else {@link Idempotency#global}.
   */
  public Idempotency idempotency() {
    return idempotency != null ? idempotency : Idempotency.global();
  }

  /**
   * Runs {@code handler} unless {@code key} has a recorded outcome or is held by another delivery.
   *
   * @return what was done; see the class description
   * @throws Exception what the handler threw (unchanged), a recorded failure it threw on an earlier
   *     delivery (when the settings record it), or an {@code IdempotencyException} when the store
   *     fails
   */
  public MessageOutcome handle(MessageKey key, MessageHandler handler) throws Exception {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(handler, "handler");
    boolean[] ran = {false};
    Exception[] wrapper = {null};
    try {
      idempotency()
          .execute(
              policy,
              key.value(),
              () -> {
                ran[0] = true;
                try {
                  handler.handle();
                } catch (Exception e) {
                  Exception recorded = recordedCause(e);
                  if (recorded != null && recorded != e) {
                    wrapper[0] = e;
                    throw recorded;
                  }
                  throw e;
                }
                return null;
              });
    } catch (IdempotencyInProgressException e) {
      if (ran[0]) {
        throw e; // the handler's own failure, from an idempotent call of its own
      }
      if (LOG.isDebugEnabled()) {
        LOG.debug(
            "message {} in scope {} is still in progress in another delivery after {} ms: handed"
                + " back to the broker",
            RecordKey.redact(key.value()),
            scope(),
            inProgressWait.toMillis());
      }
      return MessageOutcome.IN_PROGRESS;
    } catch (Exception e) {
      if (wrapper[0] != null && contains(wrapper[0], e)) {
        throw wrapper[0]; // recorded as its cause; this delivery's container gets what it threw
      }
      throw e;
    }
    return ran[0] ? MessageOutcome.PROCESSED : MessageOutcome.REPLAYED;
  }

  /**
   * The protocol of {@link #handle} for a batch consumer, whose one call does the work of several
   * messages. Every key is claimed first (all at once, on the store's non-blocking face; a key in
   * progress is waited for up to {@link #inProgressWait()}). The batch stops at the first message
   * in progress in another delivery or whose recorded failure replays: from it on nothing is
   * handled (claims taken there are released), and {@link MessageBatchOutcome#stopIndex()} tells
   * the adapter where to hand the batch back. Before it, the messages whose keys were claimed go to
   * {@code handler} in one call; replayed ones are left out. A blocked key stops the batch like a
   * replayed recorded failure: its stop cause is the {@link IdempotencyBlockedException}, a final
   * failure ({@link #isRecordedFailure} is true for it), never an in-progress one. When the handler
   * returns, their outcomes are recorded before this returns (so the acknowledgement follows the
   * record).
   *
   * <p>When the handler throws, {@code failedIndex} says where: the index of the message the
   * exception names (the messages run before it completed and are recorded; the ones after it are
   * released), or {@code -1} when the whole call failed (every message run is settled with the
   * failure, as the settings say: released by default; an {@code Error} always fails the whole
   * call). The exception is rethrown unchanged.
   *
   * @param keys the key of each message, in batch order
   * @param handler the work of the messages to run
   * @param failedIndex the index (in {@code keys}) of the message a handler's exception names, or
   *     {@code -1} for the whole call
   * @throws Exception what the handler threw, or an {@code IdempotencyException} when the store
   *     fails (every claim taken is then released, and nothing ran)
   */
  public MessageBatchOutcome handleBatch(
      List<MessageKey> keys, MessageBatchHandler handler, ToIntFunction<Exception> failedIndex)
      throws Exception {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(failedIndex, "failedIndex");
    Idempotency idempotency = idempotency();
    int n = keys.size();
    List<CompletableFuture<IdempotencyClaim>> pending = new ArrayList<>(n);
    Map<String, Integer> firstOfKey = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String key = keys.get(i).value();
      // a second message of one key in the batch follows the first, without a claim of its own
      pending.add(
          firstOfKey.putIfAbsent(key, i) == null
              ? idempotency.claim(policy, key).toCompletableFuture()
              : null);
    }
    IdempotencyClaim[] claims = new IdempotencyClaim[n];
    int stop = -1;
    Exception stopCause = null;
    Exception storeFailure = null;
    for (int i = 0; i < n; i++) {
      if (pending.get(i) == null) {
        continue;
      }
      try {
        claims[i] = await(pending.get(i));
      } catch (IdempotencyInProgressException e) {
        if (stop < 0) {
          stop = i;
          stopCause = inProgress(keys.get(i));
        }
        continue;
      } catch (Exception e) {
        if (storeFailure == null) {
          storeFailure = e;
        }
        continue;
      }
      if (stop < 0 && claims[i].replaysFailure()) {
        stop = i;
        Throwable recorded = claims[i].replayedFailure();
        stopCause =
            recorded instanceof Exception exception
                ? exception
                : new IllegalStateException("the recorded failure of this message", recorded);
      }
    }
    int end = stop < 0 ? n : stop;
    List<Integer> run = new ArrayList<>();
    List<MessageOutcome> outcomes = new ArrayList<>(end);
    for (int i = 0; i < n; i++) {
      if (pending.get(i) == null && i < end) {
        outcomes.add(MessageOutcome.REPLAYED); // the batch's earlier message of this key runs it
        continue;
      }
      IdempotencyClaim claim = claims[i];
      if (claim == null) {
        continue;
      }
      if (claim.runs() && (storeFailure != null || i >= end)) {
        await(claim.release());
      } else if (claim.runs()) {
        run.add(i);
      }
      if (i < end) {
        outcomes.add(claim.runs() ? MessageOutcome.PROCESSED : MessageOutcome.REPLAYED);
      }
    }
    if (storeFailure != null) {
      throw storeFailure;
    }
    if (!run.isEmpty()) {
      try {
        handler.handle(List.copyOf(run));
      } catch (Exception e) {
        throw settleFailedBatch(claims, run, e, failedIndex.applyAsInt(e));
      } catch (Error e) {
        // the whole call failed: every claim is settled (never left renewed), and the error goes on
        for (int i : run) {
          try {
            await(claims[i].fail(e));
          } catch (Exception settling) {
            e.addSuppressed(settling);
          }
        }
        throw e;
      }
      Exception recordingFailure = null;
      for (int i : run) {
        try {
          await(claims[i].complete(null));
        } catch (Exception e) {
          recordingFailure = recordingFailure == null ? e : recordingFailure;
        }
      }
      if (recordingFailure != null) {
        throw recordingFailure;
      }
    }
    return new MessageBatchOutcome(outcomes, stop, stopCause);
  }

  /**
   * The protocol of {@link #handle} for a delivery whose outcome is known only after the handler
   * returns: a listener that acknowledges the message itself, later (a manual acknowledgement).
   * Claims {@code key} (a key in progress is waited for up to {@link #inProgressWait()}); when
   * {@link MessageClaim#runs()}, the caller runs the work and settles the claim with exactly one of
   * {@link MessageClaim#complete()} (the message is acknowledged: its outcome is recorded), {@link
   * MessageClaim#fail} or {@link MessageClaim#release()}. Until then the claim is held and its
   * lease renewed (at most the settings' {@code maxHold}).
   *
   * @throws Exception a recorded failure of an earlier delivery, replayed, or a blocked key ({@link
   *     #isRecordedFailure} is true for both), or an {@code IdempotencyException} when the store
   *     fails
   */
  public MessageClaim claim(MessageKey key) throws Exception {
    Objects.requireNonNull(key, "key");
    IdempotencyClaim claim;
    try {
      claim = await(idempotency().claim(policy, key.value()));
    } catch (IdempotencyInProgressException e) {
      return new MessageClaim(null, MessageOutcome.IN_PROGRESS, this);
    }
    if (claim.replaysFailure()) {
      Throwable recorded = claim.replayedFailure();
      throw recorded instanceof Exception exception
          ? exception
          : new IllegalStateException("the recorded failure of this message", recorded);
    }
    return claim.runs()
        ? new MessageClaim(claim, MessageOutcome.PROCESSED, this)
        : new MessageClaim(null, MessageOutcome.REPLAYED, this);
  }

  /** Settles {@code claim} for a handler that threw {@code e}; returns what to rethrow. */
  Exception settleFailure(IdempotencyClaim claim, Exception e) throws Exception {
    Exception recorded = recordedCause(e);
    Exception settleWith = recorded != null ? recorded : e;
    Throwable rethrown = await(claim.fail(settleWith));
    if (rethrown != settleWith && rethrown instanceof Exception storeFailure) {
      return storeFailure; // the store must fail the call; the failure is suppressed in it
    }
    return e;
  }

  static <T> T awaitStage(CompletionStage<T> stage) throws Exception {
    return await(stage);
  }

  /** Settles the claims of a batch whose handler threw {@code e}; returns what to rethrow. */
  private Exception settleFailedBatch(
      IdempotencyClaim[] claims, List<Integer> run, Exception e, int failed) throws Exception {
    Exception recorded = recordedCause(e);
    Exception settleWith = recorded != null ? recorded : e;
    Exception thrown = e;
    for (int i : run) {
      if (failed >= 0 && i < failed) {
        await(claims[i].complete(null));
      } else if (failed < 0 || i == failed) {
        Throwable rethrown = await(claims[i].fail(settleWith));
        if (rethrown != settleWith && rethrown instanceof Exception storeFailure) {
          thrown = storeFailure; // the store must fail the call; the failure is suppressed in it
        }
      } else {
        await(claims[i].release());
      }
    }
    return thrown;
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof Exception exception) {
        throw exception;
      }
      throw (Error) cause;
    }
  }

  /**
   * Whether {@code failure}, thrown by {@link #handle} without the handler running on this
   * delivery, is the recorded failure of an earlier delivery replayed: one of the settings'
   * recorded failures, the ambiguous outcome {@code onAmbiguousFailure = RECORD} keeps, or a key
   * blocked by {@code onAmbiguousFailure = BLOCK} ({@link IdempotencyBlockedException}: no delivery
   * will ever finish it). An adapter hands such a repeat to the broker as a final failure (its
   * retries and dead-lettering already ran on the first delivery) instead of as one to retry.
   */
  public boolean isRecordedFailure(Throwable failure) {
    return failure instanceof IdempotencyAmbiguousOutcomeException
        || failure instanceof IdempotencyBlockedException
        || policy.settings().records(failure);
  }

  /** The first of {@code e} and its causes that the settings record, or {@code null}. */
  private Exception recordedCause(Exception e) {
    Throwable t = e;
    for (int depth = 0; t != null && depth < MAX_CAUSE_DEPTH; depth++) {
      if (t instanceof Exception candidate && policy.settings().records(candidate)) {
        return candidate;
      }
      if (t.getCause() == t) {
        break;
      }
      t = t.getCause();
    }
    return null;
  }

  private static boolean contains(Throwable chain, Throwable wanted) {
    Throwable t = chain;
    for (int depth = 0; t != null && depth < MAX_CAUSE_DEPTH; depth++) {
      if (t == wanted) {
        return true;
      }
      t = t.getCause() == t ? null : t.getCause();
    }
    return false;
  }

  /** The exception an adapter throws to hand a message in progress back to its broker. */
  public MessageInProgressException inProgress(MessageKey key) {
    return new MessageInProgressException(scope(), RecordKey.redact(key.value()), inProgressWait);
  }

  /** Validating builder. */
  public static final class Builder {
    private final String scope;
    private Idempotency idempotency;
    private IdempotencySettings settings = IdempotencySettings.DEFAULTS;
    private Duration inProgressWait = DEFAULT_IN_PROGRESS_WAIT;

    private Builder(String scope) {
      if (scope == null || scope.isBlank()) {
        throw new IllegalArgumentException(
            "scope must not be blank: name the consumer, e.g. \"orders.consumer\"");
      }
      this.scope = scope;
    }

    /** The instance to run on (default: {@link Idempotency#global()}, looked up at each call). */
    public Builder idempotency(Idempotency idempotency) {
      this.idempotency = Objects.requireNonNull(idempotency, "idempotency");
      return this;
    }

    /**
     * Store, ttl, lease, recorded failures and {@code onAmbiguousFailure} (default: the
     * configuration's defaults). {@code onDuplicate}, {@code onInProgress} and {@code waitTimeout}
     * are not used.
     */
    public Builder settings(IdempotencySettings settings) {
      this.settings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * How long a delivery whose key is held by another waits before it is handed back to the broker
     * (default {@link #DEFAULT_IN_PROGRESS_WAIT}). Every hand-back waits this long first, so a
     * message in progress is never redelivered in a hot loop.
     */
    public Builder inProgressWait(Duration wait) {
      Objects.requireNonNull(wait, "inProgressWait");
      if (wait.isNegative() || wait.isZero()) {
        throw new IllegalArgumentException("inProgressWait must be positive, was " + wait);
      }
      this.inProgressWait = wait;
      return this;
    }

    public MessageIdempotency build() {
      return new MessageIdempotency(this);
    }
  }
}
