package dev.idempotent.benchmarks;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import java.time.Duration;

/**
 * The hand-written memory baseline: what an application would write without the library, on a
 * Caffeine cache configured like the memory store (maximum size, per-entry expiry). A claim is one
 * {@code putIfAbsent} of an in-progress marker, a completion one {@code put} of the encoded
 * outcome, a replay one {@code getIfPresent} and the decoding.
 */
final class CaffeineBaseline {
  private static final Entry IN_PROGRESS = new Entry(null);

  private record Entry(byte[] outcome) {}

  private final Cache<String, Entry> cache;

  CaffeineBaseline(long maximumSize, Duration lease, Duration ttl) {
    long leaseNanos = lease.toNanos();
    long ttlNanos = ttl.toNanos();
    this.cache =
        Caffeine.newBuilder()
            .maximumSize(maximumSize)
            .expireAfter(
                new Expiry<String, Entry>() {
                  @Override
                  public long expireAfterCreate(String key, Entry value, long currentTime) {
                    return value.outcome == null ? leaseNanos : ttlNanos;
                  }

                  @Override
                  public long expireAfterUpdate(
                      String key, Entry value, long currentTime, long currentDuration) {
                    return value.outcome == null ? leaseNanos : ttlNanos;
                  }

                  @Override
                  public long expireAfterRead(
                      String key, Entry value, long currentTime, long currentDuration) {
                    return currentDuration;
                  }
                })
            .build();
  }

  /**
   * Claims {@code key}, runs the body, records the outcome; a completed key is replayed instead.
   */
  Receipt submit(String key, long amountCents) {
    Entry existing = cache.asMap().putIfAbsent(key, IN_PROGRESS);
    if (existing != null) {
      return replay(existing, key);
    }
    Receipt receipt = Receipt.issue(key, amountCents);
    cache.put(key, new Entry(BaselineOutcomes.encode(receipt)));
    return receipt;
  }

  /** The recorded receipt of a completed key. */
  Receipt replay(String key) {
    return replay(cache.getIfPresent(key), key);
  }

  private static Receipt replay(Entry entry, String key) {
    if (entry == null || entry.outcome == null) {
      throw new IllegalStateException("no completed record of " + key);
    }
    return BaselineOutcomes.decode(entry.outcome);
  }
}
