/**
 * The API: {@link dev.idempotent.Idempotent} on a method (woven at build time by {@code
 * aspectj-maven-plugin} with {@code idempotent-core} as an aspect library), its configuration
 * ({@link dev.idempotent.IdempotencyConfig}, installed with {@link
 * dev.idempotent.Idempotency#install}, or read from {@code idempotent.properties}), the
 * programmatic entry point {@link dev.idempotent.Idempotency} for code that is not woven, events
 * ({@link dev.idempotent.IdempotencyListener}) and the exceptions, all unchecked and extending
 * {@link dev.idempotent.IdempotencyException}. Stores implement {@link dev.idempotent.spi}.
 *
 * <p>Packages named {@code internal} are not API. In a named module, {@code requires
 * dev.idempotent.core} and open the packages whose classes key expressions, payload expressions,
 * key resolvers or the Jackson codec read to {@code dev.idempotent.core} (see its {@code
 * module-info}).
 */
package dev.idempotent;
