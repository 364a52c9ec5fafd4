package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.spi.RecordKey;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scopes this JVM has planned operations in, by their {@link RecordKey#scopeId() 64-bit id}:
 * two scopes with one id would share records in a store that keeps ids, so the second one is
 * refused when its plan is first built, naming both. Scopes come from the application (annotations,
 * policies, web rules, submit-token scenes), never from a request, so this set grows with the
 * application's code and configuration only; past {@value #MAX_SCOPES} scopes it stops growing and
 * says so once (a program that makes scopes from data should make keys instead).
 */
public final class ScopeIds {
  static final int MAX_SCOPES = 100_000;
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");
  private static final ConcurrentHashMap<Long, String> SCOPES = new ConcurrentHashMap<>();

  /** What first planned an operation in each scope, by scope. */
  private static final ConcurrentHashMap<String, String> ORIGINS = new ConcurrentHashMap<>();

  private static volatile boolean warnedFull;

  private ScopeIds() {}

  /**
   * Registers {@code scope} (as a store receives it, fitted).
   *
   * @param where what plans the operation, for the message ({@code null}: a programmatic policy)
   * @throws IdempotencyConfigurationException when another scope has the same id
   */
  static void register(String scope, String where) {
    register(scope, RecordKey.scopeIdOf(scope), where);
  }

  /** {@link #register(String, String)} with the id given (tests plant collisions with it). */
  static void register(String scope, long id, String where) {
    String known = SCOPES.get(id);
    if (known == null) {
      if (SCOPES.size() >= MAX_SCOPES) {
        if (!warnedFull) {
          warnedFull = true;
          LOG.warn(
              "{} scopes are in use in this JVM; scopes past that are not checked for id"
                  + " collisions. Scopes name operations: put what varies per call into the key"
                  + " instead",
              MAX_SCOPES);
        }
        return;
      }
      known = SCOPES.putIfAbsent(id, scope);
      if (known == null) {
        ORIGINS.put(scope, where == null ? "a policy or rule built in code" : where);
        return;
      }
    }
    if (!known.equals(scope)) {
      throw new IdempotencyConfigurationException(
          (where == null ? "" : where + ": ")
              + "the scopes '"
              + scope
              + "' and '"
              + known
              + "' have the same 64-bit scope id "
              + Long.toHexString(id)
              + ", so they would share records: rename one of them");
    }
  }

  /**
   * The scopes operations were planned in so far in this JVM (on a first call or a {@code
   * prepare}), sorted, each with what first planned it: {@code "@Idempotent on A.b(C)"}, or a
   * policy or rule built in code.
   */
  public static java.util.SortedMap<String, String> inUse() {
    return java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(ORIGINS));
  }

  /** For tests: forgets every scope. */
  static void clear() {
    SCOPES.clear();
    ORIGINS.clear();
    warnedFull = false;
  }
}
