package dev.idempotent.jdbc.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fixed-size id that stands for a scope in every row and in the primary key of the compact
 * table layout: the first 8 bytes of the SHA-256 of the scope's UTF-8 bytes as a signed big-endian
 * {@code BIGINT}, or, in a table whose {@code scope_id} column is an {@code INTEGER}, the first 4
 * bytes as a signed big-endian {@code INTEGER} ({@link Width}). The scope text itself is written
 * once per scope into the table's {@code _scope} table.
 */
public final class ScopeIds {
  private static final int MAX_CACHED = 10_000;
  private static final ConcurrentHashMap<String, Long> CACHE = new ConcurrentHashMap<>();

  /**
   * The width of the ids of one table, read from the type of its {@code scope_id} column; a table's
   * records are always written and found under ids of the one width.
   */
  public enum Width {
    /** {@code BIGINT}: the first 64 bits of the SHA-256. */
    BITS_64,
    /** {@code INTEGER}: the first 32 bits of the SHA-256. */
    BITS_32;

    /** The id of {@code scope} at this width. */
    public long of(String scope) {
      long id = ScopeIds.of(scope);
      return this == BITS_64 ? id : id >> Integer.SIZE;
    }
  }

  private ScopeIds() {}

  /** The 64-bit id of {@code scope}. */
  public static long of(String scope) {
    Long known = CACHE.get(scope);
    if (known != null) {
      return known;
    }
    long id = digest(scope);
    if (CACHE.size() < MAX_CACHED) {
      CACHE.putIfAbsent(scope, id);
    }
    return id;
  }

  private static long digest(String scope) {
    try {
      byte[] sha =
          MessageDigest.getInstance("SHA-256").digest(scope.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(sha, 0, Long.BYTES).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
