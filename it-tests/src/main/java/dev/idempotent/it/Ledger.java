package dev.idempotent.it;

import java.util.Collection;
import java.util.Map;

/**
 * The visible side effect of {@link LedgerService}, kept outside the JVM that runs it, so that the
 * number of executions per key is counted by the backend and not by any worker.
 */
public interface Ledger extends AutoCloseable {

  /** Records one execution of {@code key} by {@code worker}. */
  void append(String runId, String key, String worker, String nonce);

  /**
   * How many executions the backend holds for each of {@code keys} (0 for a key never executed).
   */
  Map<String, Long> counts(String runId, Collection<String> keys);

  /** Deletes this run's entries; best effort. */
  void clear(String runId, Collection<String> keys);

  @Override
  void close();
}
