package dev.idempotent;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method at most once per key: the first call claims the key in a store, runs,
 * and records its outcome; every repeat of the key gets the recorded outcome instead of running the
 * method again.
 *
 * <p>Works on any method (public, private, static, final, called from inside its own class) because
 * the aspect is woven into the method body at build time by {@code aspectj-maven-plugin}; no proxy
 * is involved.
 *
 * <pre>{@code
 * @Idempotent(key = "#request.orderId", ttl = "24h", payload = "#request")
 * public Receipt submit(OrderRequest request) { ... }
 * }</pre>
 *
 * Durations are written {@code 500ms}, {@code 30s}, {@code 10m}, {@code 24h}, {@code 7d} or
 * ISO-8601 ({@code PT10M}). Every attribute is checked the first time the method runs; a bad one
 * throws {@link IdempotencyConfigurationException} naming the method, the attribute and the fix.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {
  /**
   * Key expression over the arguments, for example {@code #orderId}, {@code #request.customer.id +
   * ':' + #p1}. {@code ""} uses a digest of all arguments.
   *
   * <p>A small read-only language, parsed on the method's first call:
   *
   * <pre>
   * expression := chain
   * chain      := postfix ('+' postfix)*
   * postfix    := primary ( ('.' | '?.') NAME ['(' ')'] | ('[' | '?.[') chain ']' )*
   * primary    := '#' NAME | STRING | INTEGER | '(' chain ')'
   * </pre>
   *
   * <ul>
   *   <li>{@code #name} is the parameter of that name (compile with {@code -parameters}); {@code
   *       #p0} and {@code #a0} the parameter at position 0, {@code #args} the argument array. A
   *       real name wins.
   *   <li>{@code x.name} reads {@code getName()}, else {@code isName()}, else the record accessor
   *       or a listed read-only method {@code name()}, else the public field; {@code .length} on
   *       arrays. {@code x.name()} calls a getter, an accessor or a read-only method of a value
   *       type ({@code toString()} of a class that has its own, {@code trim}, {@code toUpperCase},
   *       {@code Optional.get}, {@code size}, {@code name} of an enum, {@code java.time} getters,
   *       ...): never any other method.
   *   <li>{@code x[0]} is an element of an array or a {@code List}; {@code x['k']} and {@code
   *       x[#p1]} a {@code Map} entry (missing: {@code null}). {@code ?.} and {@code ?.[} give
   *       {@code null} for a null {@code x}, for one step.
   *   <li>{@code STRING} is {@code '...'} or {@code "..."} (a doubled quote inside, or the escapes
   *       {@code \\ \' \" \n \t \r \b \f} and {@code \}{@code uXXXX}); {@code INTEGER} a decimal
   *       integer.
   *   <li>{@code a + b} runs left to right as in Java: once a string is involved the rest is
   *       concatenated (a null operand renders as {@code null}), two numbers add.
   * </ul>
   *
   * Nothing else: no types, {@code new}, static calls, arguments, comparisons or assignments. A
   * null or blank key, a null on the path or a getter that throws is an {@link
   * IdempotencyKeyException}; an unknown parameter or property, or a value without its own text
   * ({@code Order@3b764bce}), is an {@link IdempotencyConfigurationException} naming the column.
   */
  String key() default "";

  /**
   * Namespace of the keys; {@code ""} is the method itself (class, name and parameter types, so
   * overloads differ).
   */
  String scope() default "";

  /** Name of a registered store; {@code ""} is the default store. */
  String store() default "";

  /**
   * How long a completed outcome is kept and replayed; {@code ""} is the configured default (24h).
   */
  String ttl() default "";

  /**
   * How long an in-flight claim holds if its holder stops renewing it; {@code ""} is the configured
   * default (30s).
   */
  String lease() default "";

  /** What a repeat of a completed key gets. */
  OnDuplicate onDuplicate() default OnDuplicate.REPLAY;

  /** What a repeat of a key that is still running gets. */
  OnInProgress onInProgress() default OnInProgress.REJECT;

  /**
   * What happens to the claim when the work of a {@code Mono}, a {@code Flux} or a {@code suspend}
   * function is cancelled before it ends (its subscriber cancels, its coroutine is cancelled).
   */
  OnCancel onCancel() default OnCancel.KEEP;

  /** How long {@link OnInProgress#WAIT} waits; {@code ""} is the configured default (10s). */
  String waitTimeout() default "";

  /**
   * Expression whose value must be the same on every repeat of a key; a different value is an
   * {@link IdempotencyKeyMismatchException}. {@code ""} checks nothing; {@code "*"} means all
   * arguments.
   */
  String payload() default "";

  /**
   * Failures kept as the outcome and rethrown (same type and message) on repeats; others are
   * settled as {@link #onAmbiguousFailure()} says.
   */
  Class<? extends Throwable>[] recordFailures() default {};

  /**
   * What an exception that is not one of {@link #recordFailures()} leaves behind: {@code RELEASE}
   * the key (a retry runs again), {@code RECORD} an ambiguous outcome (repeats get {@link
   * IdempotencyAmbiguousOutcomeException}), or {@code BLOCK} the key (repeats get {@link
   * IdempotencyBlockedException} until the ttl ends or an operator deletes the record).
   */
  OnAmbiguousFailure onAmbiguousFailure() default OnAmbiguousFailure.RELEASE;

  /**
   * A resolver used instead of {@link #key()}; {@code KeyResolver.class} means the expression
   * language.
   */
  Class<? extends KeyResolver> keyResolver() default KeyResolver.class;
}
