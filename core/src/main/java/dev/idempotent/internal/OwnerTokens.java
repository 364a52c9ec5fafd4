package dev.idempotent.internal;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Unique owner tokens without {@code SecureRandom} on the hot path: 64 random bits drawn once per JVM, then a
 * counter. Two JVMs collide only if their 64-bit prefixes do.
 */
public final class OwnerTokens {
  private static final String PREFIX;
  private static final AtomicLong COUNTER = new AtomicLong();

  static {
    long r = new SecureRandom().nextLong();
    PREFIX = Long.toUnsignedString(r, 36) + ":";
  }

  private OwnerTokens() {}

  public static String next() {
    return PREFIX.concat(Long.toString(COUNTER.incrementAndGet(), 36));
  }
}
