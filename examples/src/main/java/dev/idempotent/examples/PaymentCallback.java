package dev.idempotent.examples;

/** A payment provider's notification; providers deliver the same one several times. */
public record PaymentCallback(String paymentId, String orderId, long amountCents) {}
