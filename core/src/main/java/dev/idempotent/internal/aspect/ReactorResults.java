package dev.idempotent.internal.aspect;

import dev.idempotent.internal.IdempotencyExecutor;
import dev.idempotent.internal.ReactorCalls;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * {@code Mono} and {@code Flux} results of woven methods, on {@link ReactorCalls} (whose javadoc
 * says what a subscription does): per subscription, the key and payload are derived from the call's
 * arguments with the subscriber's context available to a key resolver, and a cancelled subscription
 * settles by the method's {@code onCancel}. Loaded only when such a method is planned, so an
 * application without Reactor never touches it.
 */
final class ReactorResults {
  private ReactorResults() {}

  static Mono<Object> mono(
      MethodPlan method, Object target, Object[] args, IdempotencyExecutor.Body body) {
    return ReactorCalls.mono(
        context -> attempt(method, target, args, context),
        method.onCancel(),
        body::run,
        method.where());
  }

  static Flux<Object> flux(
      MethodPlan method, Object target, Object[] args, IdempotencyExecutor.Body body) {
    return ReactorCalls.flux(
        context -> attempt(method, target, args, context),
        method.onCancel(),
        body::run,
        method.where());
  }

  /** One subscription's claim, with the key and payload of this call. */
  private static ReactorCalls.Attempt attempt(
      MethodPlan method, Object target, Object[] args, ContextView context) {
    MethodPlan.Resolved r = method.resolved();
    String key = method.key(r, target, args, context);
    String fingerprint = method.fingerprint(args);
    return new ReactorCalls.Attempt(
        r.executor().deferred().claim(r.plan(), key, fingerprint), r.owner().config());
  }
}
