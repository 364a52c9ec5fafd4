/**
 * An in-process idempotency store on Caffeine: {@link
 * dev.idempotent.memory.CaffeineIdempotencyStore}, for one JVM, tests and development. With this
 * module on the class path and no store configured it is the default ({@code
 * idempotent.store=memory}, {@code idempotent.memory.maximum-size}).
 */
package dev.idempotent.memory;
