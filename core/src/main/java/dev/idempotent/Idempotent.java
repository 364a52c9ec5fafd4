package dev.idempotent;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method at most once per key: the first call claims the key in a store, runs, and records
 * its outcome; every repeat of the key gets the recorded outcome instead of running the method again.
 *
 * <p>Works on any method (public, private, static, final, called from inside its own class) because the aspect
 * is woven into the method body at build time by {@code aspectj-maven-plugin}; no proxy is involved.
 *
 * <pre>{@code
 * @Idempotent(key = "#request.orderId", ttl = "24h", payload = "#request")
 * public Receipt submit(OrderRequest request) { ... }
 * }</pre>
 *
 * Durations are written {@code 500ms}, {@code 30s}, {@code 10m}, {@code 24h}, {@code 7d} or ISO-8601
 * ({@code PT10M}). Every attribute is checked the first time the method runs; a bad one throws
 * {@link IdempotencyConfigurationException} naming the method, the attribute and the fix.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {
  /**
   * Key expression over the arguments, for example {@code #orderId}, {@code #request.customer.id + ':' + #p1}.
   * {@code ""} uses a digest of all arguments. See the README for the grammar.
   */
  String key() default "";

  /** Namespace of the keys; {@code ""} is the method itself (class, name and parameter types, so overloads differ). */
  String scope() default "";

  /** Name of a registered store; {@code ""} is the default store. */
  String store() default "";

  /** How long a completed outcome is kept and replayed; {@code ""} is the configured default (24h). */
  String ttl() default "";

  /** How long an in-flight claim holds if its holder stops renewing it; {@code ""} is the configured default (30s). */
  String lease() default "";

  /** What a repeat of a completed key gets. */
  OnDuplicate onDuplicate() default OnDuplicate.REPLAY;

  /** What a repeat of a key that is still running gets. */
  OnInProgress onInProgress() default OnInProgress.REJECT;

  /** How long {@link OnInProgress#WAIT} waits; {@code ""} is the configured default (10s). */
  String waitTimeout() default "";

  /**
   * Expression whose value must be the same on every repeat of a key; a different value is an
   * {@link IdempotencyKeyMismatchException}. {@code ""} checks nothing; {@code "*"} means all arguments.
   */
  String payload() default "";

  /** Failures kept as the outcome and rethrown (same type and message) on repeats; others free the key. */
  Class<? extends Throwable>[] recordFailures() default {};

  /** A resolver used instead of {@link #key()}; {@code KeyResolver.class} means the expression language. */
  Class<? extends KeyResolver> keyResolver() default KeyResolver.class;
}
