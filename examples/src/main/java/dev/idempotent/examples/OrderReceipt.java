package dev.idempotent.examples;

import java.io.Serializable;

/** What the service answers; {@code orderNumber} shows which execution produced it. */
public record OrderReceipt(
    String orderId, String customerId, String sku, int quantity, long orderNumber)
    implements Serializable {}
