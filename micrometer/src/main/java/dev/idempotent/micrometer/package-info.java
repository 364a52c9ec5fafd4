/**
 * Micrometer for idempotent calls: {@link
 * dev.idempotent.micrometer.ObservationIdempotencyObserver}, an observation (a span in a trace) per
 * call; and {@link dev.idempotent.micrometer.MicrometerIdempotencyListener}, a {@link
 * dev.idempotent.IdempotencyListener} with a counter per outcome and a timer of executions, by
 * scope.
 */
package dev.idempotent.micrometer;
