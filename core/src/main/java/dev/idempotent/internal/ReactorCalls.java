package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.OnCancel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * {@code Mono} and {@code Flux} work on the deferred driver ({@link DeferredDriver}): the one
 * Reactor face of the protocol, for woven methods ({@code ReactorResults}) and for code that is not
 * woven ({@code dev.idempotent.reactor.IdempotentReactor}) alike. Loaded only when Reactor is used,
 * so an application without Reactor never touches it.
 *
 * <ul>
 *   <li>Assembly runs nothing: nothing is claimed and the work is not asked for its publisher until
 *       the returned one is subscribed. Each subscription is one attempt with the semantics of a
 *       call (so {@code retry()} on the caller's side replays a completed outcome instead of
 *       running again); the key is derived then, with the subscriber's context at hand.
 *   <li>The claim, the wait for a key in progress and the settling use the store's non-blocking
 *       face: no thread is parked.
 *   <li>The first subscription runs the work and records what it emitted: a {@code Mono}'s value or
 *       its emptiness, a {@code Flux}'s items in order (items go to the subscriber as they come;
 *       completion is signalled once the outcome is recorded). A {@code Flux} that emits more than
 *       {@link IdempotencyConfig#fluxMaxItems()} items, or whose items take more than {@link
 *       IdempotencyConfig#fluxMaxBytes()} recorded, is delivered whole but not recorded: the items
 *       held are let go as soon as a limit is passed, and the key is released when it ends.
 *   <li>An error is settled as a thrown exception is (recorded when listed, else the key is
 *       released), an {@code Error} that Reactor throws instead of signalling included ({@link
 *       ThrownErrorSignal}), and reaches the subscriber as an error signal. A cancelled
 *       subscription settles the claim by the operation's {@link OnCancel}.
 *   <li>Every refusal (in progress, mismatch, store failure, a key that cannot be derived) reaches
 *       the subscriber as an error signal, never as an exception thrown at assembly.
 *   <li>The call's observation is current while the work is asked for its publisher, and is written
 *       into the Reactor context of the work's pipeline ({@link ReactorContextCapture}): with
 *       Reactor's automatic context propagation, what the work observes is nested in the call.
 * </ul>
 */
public final class ReactorCalls {
  private ReactorCalls() {}

  /** One subscription's claim, started, and the configuration its items are limited by. */
  public record Attempt(CompletionStage<DeferredDriver.Claim> claimed, IdempotencyConfig config) {}

  /** The work of one attempt: returns its publisher, or throws. */
  @FunctionalInterface
  public interface Work {
    Object publisher() throws Throwable;
  }

  /**
   * A {@code Mono} that, per subscription, starts an attempt with the subscriber's context, then
   * runs {@code work} or replays the recorded outcome.
   *
   * @param where names the work in the message when it returns {@code null}
   */
  public static Mono<Object> mono(
      Function<ContextView, Attempt> start, OnCancel onCancel, Work work, String where) {
    return Mono.deferContextual(
        context -> {
          Attempt attempt;
          try {
            attempt = start.apply(context);
          } catch (Throwable t) {
            return Mono.error(t);
          }
          return answer(attempt, onCancel)
              .flatMap(
                  answer -> {
                    if (!(answer instanceof DeferredDriver.Claim claim)) {
                      return errorSignal((Throwable) answer);
                    }
                    return claim.runs() ? runMono(claim, onCancel, work, where) : replayMono(claim);
                  });
        });
  }

  /** {@link #mono} for a {@code Flux}, its items recorded within the configuration's limits. */
  public static Flux<Object> flux(
      Function<ContextView, Attempt> start, OnCancel onCancel, Work work, String where) {
    return Flux.deferContextual(
        context -> {
          Attempt attempt;
          try {
            attempt = start.apply(context);
          } catch (Throwable t) {
            return Flux.error(t);
          }
          return answer(attempt, onCancel)
              .flatMapMany(
                  answer -> {
                    if (!(answer instanceof DeferredDriver.Claim claim)) {
                      return ReactorCalls.errorSignal((Throwable) answer).flux();
                    }
                    return claim.runs()
                        ? runFlux(attempt.config(), claim, onCancel, work, where)
                        : replayFlux(claim);
                  });
        });
  }

  /**
   * The claim's answer: the claim, or the refusal as a value, which the one operator that follows
   * turns into the run, the replay or the error signal. A refusal travels as a value so that one
   * that comes after the subscriber left (a {@code timeout()} while the key was waited for) is
   * discarded, not dropped as an unhandled error. A claim acquired after its subscriber cancelled
   * is settled by the on-cancel setting, so that nothing is left renewed and unsettled.
   */
  private static Mono<Object> answer(Attempt attempt, OnCancel onCancel) {
    CompletableFuture<DeferredDriver.Claim> claimed = attempt.claimed().toCompletableFuture();
    CompletableFuture<Object> answered =
        claimed.handle((claim, error) -> error == null ? claim : Protocol.unwrap(error));
    return Mono.fromFuture(answered, true)
        .doOnCancel(
            () ->
                claimed.thenAccept(
                    c -> {
                      if (c.runs()) {
                        c.cancel(onCancel);
                      }
                    }));
  }

  private static Mono<Object> replayMono(DeferredDriver.Claim claim) {
    if (claim.replaysFailure()) {
      return errorSignal(claim.replayedFailure());
    }
    return Mono.justOrEmpty(claim.replayedValue());
  }

  private static Flux<Object> replayFlux(DeferredDriver.Claim claim) {
    if (claim.replaysFailure()) {
      return errorSignal(claim.replayedFailure()).flux();
    }
    Object items = claim.replayedValue();
    return items == null ? Flux.empty() : Flux.fromIterable((List<?>) items);
  }

  @SuppressWarnings("unchecked") // a Mono of any type is read as a Mono of Object
  private static Mono<Object> runMono(
      DeferredDriver.Claim claim, OnCancel onCancel, Work work, String where) {
    Mono<Object> running;
    Function<Context, Context> inside;
    try (IdempotencyObserver.Scope scope = claim.openScope()) {
      inside = inside(scope);
      running = (Mono<Object>) publisher(work, where, "Mono");
    } catch (Throwable t) {
      return settled(claim.fail(Protocol.unwrap(t)));
    }
    return ThrownErrorSignal.mono(running.contextWrite(inside))
        .flatMap(value -> settling(claim.complete(value)))
        .switchIfEmpty(Mono.defer(() -> settling(claim.complete(null)).then(Mono.empty())))
        .onErrorResume(e -> settled(claim.fail(Protocol.unwrap(e))))
        .doOnCancel(() -> claim.cancel(onCancel));
  }

  private static Flux<Object> runFlux(
      IdempotencyConfig config,
      DeferredDriver.Claim claim,
      OnCancel onCancel,
      Work work,
      String where) {
    Flux<?> running;
    Function<Context, Context> inside;
    try (IdempotencyObserver.Scope scope = claim.openScope()) {
      inside = inside(scope);
      running = (Flux<?>) publisher(work, where, "Flux");
    } catch (Throwable t) {
      return settled(claim.fail(Protocol.unwrap(t))).flux();
    }
    Items items = new Items(claim, config.fluxMaxItems(), config.fluxMaxBytes());
    return ThrownErrorSignal.flux(running.contextWrite(inside))
        .cast(Object.class)
        .doOnNext(items::add)
        .concatWith(
            Mono.defer(
                () ->
                    items.overLimit != null
                        ? settling(claim.abandon(items.overLimit)).then(Mono.empty())
                        : settling(claim.complete(items.list, config.fluxMaxBytes()))
                            .then(Mono.empty())))
        .onErrorResume(e -> settled(claim.fail(Protocol.unwrap(e))))
        .doOnCancel(() -> claim.cancel(onCancel));
  }

  /**
   * The items of a {@code Flux}, held while they stay within both limits. Past either, the items
   * held so far are let go at once and no more are held, so a long {@code Flux} costs no more
   * memory than it would without the library; the claim is held until the {@code Flux} ends (no
   * repeat runs alongside it) and then released.
   */
  private static final class Items {
    final DeferredDriver.Claim claim;
    final int maxItems;
    final long maxBytes;
    final List<Object> list = new ArrayList<>();
    long bytes;
    String overLimit;

    Items(DeferredDriver.Claim claim, int maxItems, int maxBytes) {
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

  /**
   * What the work's Reactor context gets while the call's {@code scope} is open: the call's
   * observation (nothing when the call is not observed).
   */
  private static Function<Context, Context> inside(IdempotencyObserver.Scope scope) {
    return scope == IdempotencyObserver.Scope.NONE
        ? Function.identity()
        : ReactorContextCapture.current();
  }

  /** The publisher the work returns; a {@code null} is the work's mistake. */
  private static Object publisher(Work work, String where, String type) throws Throwable {
    Object publisher = work.publisher();
    if (publisher == null) {
      throw new NullPointerException(
          where + " returned null instead of a " + type + " (return " + type + ".empty())");
    }
    return publisher;
  }

  /** An error signal with what settling a failure gave: the failure, or the store's exception. */
  private static Mono<Object> settled(CompletionStage<Throwable> failure) {
    return settling(failure).flatMap(ReactorCalls::errorSignal);
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
}
