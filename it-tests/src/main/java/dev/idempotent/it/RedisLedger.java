package dev.idempotent.it;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.redisson.api.RedissonClient;

/**
 * A ledger of Redis counters: one {@code INCR ledger:<run>:<key>} per execution, on the ledger's
 * own client.
 */
public final class RedisLedger implements Ledger {
  private final RedissonClient client;

  public RedisLedger(RedissonClient client) {
    this.client = client;
  }

  static String counter(String runId, String key) {
    return "ledger:" + runId + ":" + key;
  }

  @Override
  public void append(String runId, String key, String worker, String nonce) {
    client.getAtomicLong(counter(runId, key)).incrementAndGet();
  }

  @Override
  public Map<String, Long> counts(String runId, Collection<String> keys) {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String key : keys) {
      counts.put(key, client.getAtomicLong(counter(runId, key)).get());
    }
    return counts;
  }

  @Override
  public void clear(String runId, Collection<String> keys) {
    for (String key : keys) {
      client.getAtomicLong(counter(runId, key)).delete();
    }
  }

  @Override
  public void close() {
    client.shutdown();
  }
}
