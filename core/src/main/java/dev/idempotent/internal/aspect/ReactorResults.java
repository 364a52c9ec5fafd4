package dev.idempotent.internal.aspect;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.OnCancel;
import dev.idempotent.internal.DeferredCalls;
import dev.idempotent.internal.IdempotencyExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code Mono} and {@code Flux} results of woven methods. Loaded only when such a method is
 * planned, so an application without Reactor never touches it.
 *
 * <ul>
 *   <li>Calling the method only assembles: nothing is claimed and the method's body does not run
 *       until the returned publisher is subscribed. Each subscription is one attempt with the
 *       semantics of a call (so {@code retry()} on the caller's side replays a completed outcome
 *       instead of running again), and the key and payload are derived then, with the subscriber's
 *       context available to a key resolver.
 *   <li>The claim, the wait for a key in progress and the settling use the store's non-blocking
 *       face ({@link DeferredCalls}): no thread is parked.
 *   <li>The first subscription runs the body and records what it emitted: a {@code Mono}'s value or
 *       its emptiness, a {@code Flux}'s items in order (items go to the subscriber as they come;
 *       completion is signalled once the outcome is recorded). A {@code Flux} that emits more than
 *       {@link IdempotencyConfig#fluxMaxItems()} items, or whose items take more than {@link
 *       IdempotencyConfig#fluxMaxBytes()} recorded, is delivered whole but not recorded: the items
 *       held are let go as soon as a limit is passed, and the key is released when it ends.
 *   <li>An error is settled as a thrown exception is (recorded when listed, else the key is
 *       released), an {@code Error} that Reactor throws instead of signalling included ({@link
 *       ThrownErrorSignal}), and reaches the subscriber as an error signal. A cancelled
 *       subscription settles the claim by the method's {@link OnCancel}.
 *   <li>Every refusal (in progress, mismatch, store failure, a key that cannot be derived) reaches
 *       the subscriber as an error signal, never as an exception thrown by the method call.
 * </ul>
 */
final class ReactorResults {
  private ReactorResults() {}

  static Mono<Object> mono(
      MethodPlan method, Object target, Object[] args, IdempotencyExecutor.Body body) {
    return Mono.deferContextual(
        context -> {
          Attempt attempt;
          try {
            attempt = Attempt.start(method, target, args, context);
          } catch (Throwable t) {
            return Mono.error(t);
          }
          return attempt
              .claim()
              .flatMap(claim -> claim.runs() ? runMono(method, claim, body) : replayMono(claim));
        });
  }

  static Flux<Object> flux(
      MethodPlan method, Object target, Object[] args, IdempotencyExecutor.Body body) {
    return Flux.deferContextual(
        context -> {
          Attempt attempt;
          try {
            attempt = Attempt.start(method, target, args, context);
          } catch (Throwable t) {
            return Flux.error(t);
          }
          return attempt
              .claim()
              .flatMapMany(
                  claim ->
                      claim.runs()
                          ? runFlux(method, attempt.config, claim, body)
                          : replayFlux(claim));
        });
  }

  /** One subscription's claim. */
  private static final class Attempt {
    final MethodPlan method;
    final MethodPlan.Resolved resolved;
    final IdempotencyConfig config;
    final String key;
    final String fingerprint;

    private Attempt(
        MethodPlan method, MethodPlan.Resolved resolved, String key, String fingerprint) {
      this.method = method;
      this.resolved = resolved;
      this.config = resolved.owner().config();
      this.key = key;
      this.fingerprint = fingerprint;
    }

    static Attempt start(MethodPlan method, Object target, Object[] args, Object context) {
      MethodPlan.Resolved r = method.resolved();
      return new Attempt(method, r, method.key(r, target, args, context), method.fingerprint(args));
    }

    /**
     * The claim; a claim acquired after its subscriber cancelled is settled by the method's
     * on-cancel setting, so that nothing is left renewed and unsettled.
     */
    Mono<DeferredCalls.Claim> claim() {
      CompletableFuture<DeferredCalls.Claim> claimed =
          resolved
              .executor()
              .deferred()
              .claim(resolved.plan(), key, fingerprint)
              .toCompletableFuture();
      OnCancel onCancel = method.onCancel();
      // a refusal travels as a value: one that comes after the subscriber left (a timeout() while
      // the key was waited for) is then discarded, not dropped as an unhandled error
      CompletableFuture<Object> answered =
          claimed.handle((claim, error) -> error == null ? claim : unwrap(error));
      return Mono.fromFuture(answered, true)
          .flatMap(
              answer ->
                  answer instanceof DeferredCalls.Claim claim
                      ? Mono.just(claim)
                      : ReactorResults.<DeferredCalls.Claim>errorSignal((Throwable) answer))
          .doOnCancel(
              () ->
                  claimed.thenAccept(
                      c -> {
                        if (c.runs()) {
                          c.cancel(onCancel);
                        }
                      }));
    }
  }

  private static Mono<Object> replayMono(DeferredCalls.Claim claim) {
    if (claim.replaysFailure()) {
      return errorSignal(claim.replayedFailure());
    }
    return Mono.justOrEmpty(claim.replayedValue());
  }

  private static Flux<Object> replayFlux(DeferredCalls.Claim claim) {
    if (claim.replaysFailure()) {
      return errorSignal(claim.replayedFailure()).flux();
    }
    Object items = claim.replayedValue();
    return items == null ? Flux.empty() : Flux.fromIterable((List<?>) items);
  }

  @SuppressWarnings("unchecked") // a Mono of any type is read as a Mono of Object
  private static Mono<Object> runMono(
      MethodPlan method, DeferredCalls.Claim claim, IdempotencyExecutor.Body body) {
    Mono<Object> work;
    try {
      work = (Mono<Object>) body(method, body, "Mono");
    } catch (Throwable t) {
      return settled(claim.fail(unwrap(t)));
    }
    OnCancel onCancel = method.onCancel();
    return ThrownErrorSignal.mono(work)
        .flatMap(value -> settling(claim.complete(value)))
        .switchIfEmpty(Mono.defer(() -> settling(claim.complete(null)).then(Mono.empty())))
        .onErrorResume(e -> settled(claim.fail(unwrap(e))))
        .doOnCancel(() -> claim.cancel(onCancel));
  }

  private static Flux<Object> runFlux(
      MethodPlan method,
      IdempotencyConfig config,
      DeferredCalls.Claim claim,
      IdempotencyExecutor.Body body) {
    Flux<?> work;
    try {
      work = (Flux<?>) body(method, body, "Flux");
    } catch (Throwable t) {
      return settled(claim.fail(unwrap(t))).flux();
    }
    OnCancel onCancel = method.onCancel();
    Items items = new Items(claim, config.fluxMaxItems(), config.fluxMaxBytes());
    return ThrownErrorSignal.flux(work)
        .cast(Object.class)
        .doOnNext(items::add)
        .concatWith(
            Mono.defer(
                () ->
                    items.overLimit != null
                        ? settling(claim.abandon(items.overLimit)).then(Mono.empty())
                        : settling(claim.complete(items.list, config.fluxMaxBytes()))
                            .then(Mono.empty())))
        .onErrorResume(e -> settled(claim.fail(unwrap(e))))
        .doOnCancel(() -> claim.cancel(onCancel));
  }

  /**
   * The items of a {@code Flux}, held while they stay within both limits. Past either, the items
   * held so far are let go at once and no more are held, so a long {@code Flux} costs no more
   * memory than it would without the library; the claim is held until the {@code Flux} ends (no
   * repeat runs alongside it) and then released.
   */
  private static final class Items {
    final DeferredCalls.Claim claim;
    final int maxItems;
    final long maxBytes;
    final List<Object> list = new ArrayList<>();
    long bytes;
    String overLimit;

    Items(DeferredCalls.Claim claim, int maxItems, int maxBytes) {
      this.claim = claim;
      this.maxItems = maxItems;
      this.maxBytes = maxBytes;
    }

    void add(Object item) {
      if (overLimit != null) {
        return;
      }
      if (list.size() == maxItems) {
        letGo("more than " + maxItems + " items");
        return;
      }
      try {
        bytes += claim.itemBytes(item);
      } catch (RuntimeException e) {
        letGo("an item cannot be recorded: " + e.getClass().getName());
        return;
      }
      if (bytes > maxBytes) {
        letGo("more than " + maxBytes + " bytes of items");
        return;
      }
      list.add(item);
    }

    private void letGo(String why) {
      overLimit = why;
      list.clear();
      claim.overLimit(why);
    }
  }

  /** The publisher the method's body returns; a {@code null} is the method's mistake. */
  private static Object body(MethodPlan method, IdempotencyExecutor.Body body, String type)
      throws Throwable {
    Object publisher = body.run();
    if (publisher == null) {
      throw new NullPointerException(
          method.where()
              + " returned null instead of a "
              + type
              + " (return "
              + type
              + ".empty())");
    }
    return publisher;
  }

  /** An error signal with what settling a failure gave: the failure, or the store's exception. */
  private static Mono<Object> settled(CompletionStage<Throwable> failure) {
    return settling(failure).flatMap(ReactorResults::errorSignal);
  }

  /**
   * An error signal that {@code flatMap} subscribes to. A bare {@code Mono.error} is {@code
   * Callable}: {@code flatMap} calls it instead, and an {@code Error} that Reactor calls fatal is
   * then thrown up the stack (into a store stage's callback, where it would be lost) rather than
   * signalled; {@code handle}'s {@code sink.error} does the same.
   */
  private static <T> Mono<T> errorSignal(Throwable error) {
    return Mono.<T>error(error).hide();
  }

  /**
   * A settling step (recording, releasing) as a {@code Mono} that a cancelled subscriber leaves
   * alone: the write goes on, and a store's stage that refuses {@code cancel} (a {@code
   * CompletableFuture.completedStage}) is never asked to.
   */
  private static <T> Mono<T> settling(CompletionStage<T> stage) {
    return Mono.fromFuture(stage.toCompletableFuture(), true);
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
