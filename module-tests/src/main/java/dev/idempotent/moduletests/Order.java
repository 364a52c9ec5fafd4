package dev.idempotent.moduletests;

/** An order as a user's service receives it. */
public record Order(String id, int quantity) {}
