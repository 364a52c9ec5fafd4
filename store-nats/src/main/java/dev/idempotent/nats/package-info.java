/**
 * The idempotency store on a NATS JetStream key-value bucket: {@link
 * dev.idempotent.nats.NatsIdempotencyStore}.
 */
package dev.idempotent.nats;
