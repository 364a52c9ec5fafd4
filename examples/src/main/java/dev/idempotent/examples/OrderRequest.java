package dev.idempotent.examples;

import java.io.Serializable;

/** What a client submits. */
public record OrderRequest(String customerId, String sku, int quantity) implements Serializable {}
