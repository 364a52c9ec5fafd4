package dev.idempotent;

/**
 * Computes the idempotency key of a call, instead of the {@link Idempotent#key()} expression.
 *
 * <p>A class with a no-argument constructor named in {@link Idempotent#keyResolver()} is
 * instantiated once by the library; one that needs collaborators is registered as an instance with
 * {@link IdempotencyConfig.Builder#keyResolver(KeyResolver)}. Must be thread-safe. A {@code null}
 * or blank result is an {@link IdempotencyKeyException}.
 */
@FunctionalInterface
public interface KeyResolver {
  String resolve(InvocationContext context);
}
