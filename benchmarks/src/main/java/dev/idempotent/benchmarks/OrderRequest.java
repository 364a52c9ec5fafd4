package dev.idempotent.benchmarks;

/**
 * The argument the key-expression benchmark reads a property of.
 *
 * @param customerId read by {@code #request.customerId}
 * @param amountCents not part of the key
 */
public record OrderRequest(String customerId, long amountCents) {}
