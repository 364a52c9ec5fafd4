package dev.idempotent.spring.it;

/** The order API's request body. */
public record OrderRequest(String item, int quantity) {}
