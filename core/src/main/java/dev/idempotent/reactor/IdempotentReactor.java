package dev.idempotent.reactor;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.internal.ExecutorAccess;
import dev.idempotent.internal.Fingerprints;
import dev.idempotent.internal.ListOf;
import dev.idempotent.internal.OperationPlan;
import dev.idempotent.internal.ReactorCalls;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Idempotent {@code Mono} and {@code Flux} work for code that is not woven: the Reactor form of
 * {@link Idempotency#executeDeferred}, on the very code that runs a woven method returning a {@code
 * Mono} or a {@code Flux}, so it behaves as such a method does.
 *
 * <pre>{@code
 * Mono<Receipt> receipt =
 *     IdempotentReactor.mono(idempotency, policy, request.id(), request, () -> gateway.charge(request));
 * }</pre>
 *
 * <ul>
 *   <li>Assembly runs nothing: the policy is planned, the payload digested, the key claimed and
 *       {@code body} asked for its publisher only when the returned publisher is subscribed. Each
 *       subscription is one attempt ({@code retry()} replays a completed outcome instead of running
 *       again).
 *   <li>The first attempt runs {@code body}'s publisher and records what it emitted: a {@code
 *       Mono}'s value or its emptiness, a {@code Flux}'s items in order, within {@code
 *       idempotent.flux.max-items} and {@code max-bytes} (past them the items are delivered but not
 *       recorded, and the key is released when the {@code Flux} ends). A repeat gets the recorded
 *       outcome; an error is settled as a thrown exception is.
 *   <li>A cancelled subscription settles the claim by the policy's {@link
 *       dev.idempotent.IdempotencySettings#onCancel()}.
 *   <li>Every refusal (in progress, another payload, a store failure under fail-closed, a blank
 *       key, a policy that cannot be planned) reaches the subscriber as an error signal.
 * </ul>
 *
 * For a {@code Flux} the policy's {@link IdempotencyPolicy#resultType()} is the type of one item
 * (the items are recorded as a list of it), as {@code Flux<Item>} is for a woven method. This class
 * is the one place of the programmatic API that links Reactor: an application without Reactor never
 * loads it.
 */
public final class IdempotentReactor {
  /** The policy each {@code Flux} policy records its list of items under; kept per policy. */
  private static final Map<IdempotencyPolicy, IdempotencyPolicy> ITEMS =
      Collections.synchronizedMap(new WeakHashMap<>());

  private IdempotentReactor() {}

  /**
   * A {@code Mono} that runs {@code body}'s {@code Mono} at most once per {@code key}; a repeat
   * whose {@code payload} differs from the first one's gets {@link
   * dev.idempotent.IdempotencyKeyMismatchException}. The payload is digested by content at each
   * subscription ({@code null} is a value too).
   */
  public static <T> Mono<T> mono(
      Idempotency idempotency,
      IdempotencyPolicy policy,
      String key,
      Object payload,
      Supplier<? extends Mono<T>> body) {
    return mono(idempotency, policy, key, true, payload, body);
  }

  /**
   * {@link #mono(Idempotency, IdempotencyPolicy, String, Object, Supplier)} with no payload check.
   */
  public static <T> Mono<T> mono(
      Idempotency idempotency,
      IdempotencyPolicy policy,
      String key,
      Supplier<? extends Mono<T>> body) {
    return mono(idempotency, policy, key, false, null, body);
  }

  /**
   * A {@code Flux} that runs {@code body}'s {@code Flux} at most once per {@code key} and replays
   * its items in order; the payload is checked as {@link #mono(Idempotency, IdempotencyPolicy,
   * String, Object, Supplier)} checks it.
   */
  public static <T> Flux<T> flux(
      Idempotency idempotency,
      IdempotencyPolicy policy,
      String key,
      Object payload,
      Supplier<? extends Flux<T>> body) {
    return flux(idempotency, policy, key, true, payload, body);
  }

  /**
   * {@link #flux(Idempotency, IdempotencyPolicy, String, Object, Supplier)} with no payload check.
   */
  public static <T> Flux<T> flux(
      Idempotency idempotency,
      IdempotencyPolicy policy,
      String key,
      Supplier<? extends Flux<T>> body) {
    return flux(idempotency, policy, key, false, null, body);
  }

  /**
   * The operator form, for {@code mono.transformDeferred(IdempotentReactor.monoOperator(...))}: the
   * {@code Mono} it is applied to is the body.
   */
  public static <T> Function<Mono<T>, Mono<T>> monoOperator(
      Idempotency idempotency, IdempotencyPolicy policy, String key, Object payload) {
    return source -> mono(idempotency, policy, key, payload, () -> source);
  }

  /**
   * {@link #monoOperator} for a {@code Flux}: {@code flux.transformDeferred(fluxOperator(...))}.
   */
  public static <T> Function<Flux<T>, Flux<T>> fluxOperator(
      Idempotency idempotency, IdempotencyPolicy policy, String key, Object payload) {
    return source -> flux(idempotency, policy, key, payload, () -> source);
  }

  @SuppressWarnings("unchecked") // the recorded value is the body's
  private static <T> Mono<T> mono(
      Idempotency idempotency,
      IdempotencyPolicy policy,
      String key,
      boolean checked,
      Object payload,
      Supplier<? extends Mono<T>> body) {
    check(idempotency, policy, body);
    return (Mono<T>)
        ReactorCalls.mono(
            context -> attempt(idempotency, policy, key, checked, payload),
            policy.settings().onCancel(),
            body::get,
            "the body of IdempotentReactor.mono for scope " + policy.scope());
  }

  @SuppressWarnings("unchecked") // the recorded items are the body's
  private static <T> Flux<T> flux(
      Idempotency idempotency,
      IdempotencyPolicy policy,
      String key,
      boolean checked,
      Object payload,
      Supplier<? extends Flux<T>> body) {
    check(idempotency, policy, body);
    return (Flux<T>)
        ReactorCalls.flux(
            context -> attempt(idempotency, itemsPolicy(policy), key, checked, payload),
            policy.settings().onCancel(),
            body::get,
            "the body of IdempotentReactor.flux for scope " + policy.scope());
  }

  private static ReactorCalls.Attempt attempt(
      Idempotency idempotency,
      IdempotencyPolicy policy,
      String key,
      boolean checked,
      Object payload) {
    OperationPlan plan = ExecutorAccess.plan(idempotency, policy);
    String fingerprint = checked ? Fingerprints.of(payload) : null;
    return new ReactorCalls.Attempt(
        ExecutorAccess.of(idempotency).deferred().claim(plan, key, fingerprint),
        idempotency.config());
  }

  /** {@code policy} with a list of its result type as the recorded type. */
  private static IdempotencyPolicy itemsPolicy(IdempotencyPolicy policy) {
    return ITEMS.computeIfAbsent(
        policy,
        p -> {
          IdempotencyPolicy.Builder b =
              IdempotencyPolicy.builder(p.scope())
                  .settings(p.settings())
                  .resultType(new ListOf(p.resultType()));
          return p.replayHooked() ? b.build() : b.withoutReplayHook().build();
        });
  }

  private static void check(Idempotency idempotency, IdempotencyPolicy policy, Supplier<?> body) {
    Objects.requireNonNull(idempotency, "idempotency must not be null: pass the instance to use");
    Objects.requireNonNull(
        policy, "policy must not be null: build one with IdempotencyPolicy.builder");
    Objects.requireNonNull(body, "body must not be null: pass the work that returns the publisher");
  }
}
