package dev.idempotent.internal;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Unique owner tokens without {@code SecureRandom} on the hot path: 64 random bits drawn once per
 * JVM, then a number unique in the JVM. Two JVMs collide only if their 64-bit prefixes do.
 *
 * <p>The number comes from one of {@value #STRIPES} counters, picked by the calling thread's id, so
 * that threads calling at once rarely share a counter's cache line: counter {@code s} gives the
 * numbers {@code s + STRIPES}, {@code s + 2 * STRIPES}, … and no two counters give the same number.
 */
public final class OwnerTokens {
  static final int STRIPES = 64;

  /** Longs per counter: each counter on a cache line (and prefetched pair) of its own. */
  private static final int SPACING = 16;

  private static final String PREFIX;
  private static final AtomicLongArray COUNTERS = new AtomicLongArray(STRIPES * SPACING);

  static {
    long r = new SecureRandom().nextLong();
    PREFIX = Long.toUnsignedString(r, 36) + ":";
  }

  private OwnerTokens() {}

  /**
   * Draws the random prefix now, if not yet done: seeding {@code SecureRandom} reads the system's
   * entropy source, a blocking call that must not happen on an event loop at a deferred call's
   * first claim. Called when an executor is created.
   */
  static void prepare() {
    // loading the class ran its static initializer
  }

  /**
   * The next token: the prefix and the number in decimal, built in one exactly sized string (a
   * base-36 number would go through a 65-byte scratch array and a second copy on every claim).
   */
  @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; getId() is the same number
  public static String next() {
    int stripe = (int) (Thread.currentThread().getId() & (STRIPES - 1));
    long n = COUNTERS.incrementAndGet(stripe * SPACING);
    return PREFIX + (n * STRIPES + stripe);
  }
}
