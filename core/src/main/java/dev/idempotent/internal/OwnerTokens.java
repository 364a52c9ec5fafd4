package dev.idempotent.internal;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Unique owner tokens without {@code SecureRandom} on the hot path: 64 random bits drawn once per
 * JVM, then a counter. Two JVMs collide only if their 64-bit prefixes do.
 */
public final class OwnerTokens {
  private static final String PREFIX;
  private static final AtomicLong COUNTER = new AtomicLong();

  static {
    long r = new SecureRandom().nextLong();
    PREFIX = Long.toUnsignedString(r, 36) + ":";
  }

  private OwnerTokens() {}

  /**
   * The next token: the prefix and the counter in decimal, built in one exactly sized string (a
   * base-36 counter would go through a 65-byte scratch array and a second copy on every claim).
   */
  public static String next() {
    return PREFIX + COUNTER.incrementAndGet();
  }
}
