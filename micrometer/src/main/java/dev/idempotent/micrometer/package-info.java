/**
 * Micrometer meters for idempotent calls: {@link
 * dev.idempotent.micrometer.MicrometerIdempotencyListener}, a {@link
 * dev.idempotent.IdempotencyListener} with a counter per outcome and a timer of executions, by
 * scope.
 */
package dev.idempotent.micrometer;
