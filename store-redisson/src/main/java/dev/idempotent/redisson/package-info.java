/**
 * An idempotency store in Redis through Redisson: {@link
 * dev.idempotent.redisson.RedissonIdempotencyStore}. With this module on the classpath, {@code
 * idempotent.store=redisson} and {@code idempotent.redisson.address} configure it with no code.
 */
package dev.idempotent.redisson;
