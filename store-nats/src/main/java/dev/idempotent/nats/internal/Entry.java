package dev.idempotent.nats.internal;

/**
 * The latest message of a key as JetStream holds it: its revision (the stream sequence, the fencing
 * token of every conditional write), the server's timestamp of it in epoch milliseconds, whether it
 * is a delete marker, and its value.
 */
public record Entry(long revision, long serverMillis, boolean deleted, byte[] value) {}
