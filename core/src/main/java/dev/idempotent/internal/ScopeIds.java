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
final class ScopeIds {
  static final int MAX_SCOPES = 100_000;
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");
  private static final ConcurrentHashMap<Long, String> SCOPES = new ConcurrentHashMap<>();
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

  /** For tests: forgets every scope. */
  static void clear() {
    SCOPES.clear();
    warnedFull = false;
  }
}
