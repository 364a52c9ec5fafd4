package dev.idempotent.jdbc.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The scopes a store meets, in {@code <table>_scope}: each scope's text once, under its 64-bit id
 * ({@link RecordKey#scopeId()}), which stands for the scope in every record.
 *
 * <ul>
 *   <li><b>Register</b>: before it writes records of a scope, the store makes sure the scope's row
 *       holds its text: an {@code UPDATE} of {@code refreshed_at} where the id holds this text;
 *       when that finds no row, an insert that does nothing when the id has a row, then a read of
 *       the text. Another scope's text under the id is an {@link IdempotencyConfigurationException}
 *       naming both scopes, and nothing is written: the records of two scopes never share an id. A
 *       read or an administrative delete only reads the text (once per scope), and refuses the same
 *       way.
 *   <li><b>Refresh</b>: the store registers a scope again when it writes records of it and last did
 *       so {@value #REFRESH_HOURS} hour ago or more, so a scope row in use is never older than
 *       that.
 *   <li><b>Purge</b>: the purge deletes scope rows that no record has and that have gone
 *       unrefreshed for {@link #ORPHAN_AGE} ({@link SqlStatements#purgeScopes}). A store writes
 *       records of a scope only within the hour after it refreshed it, so no scope row is deleted
 *       while a store is about to write records of it; a store that comes back to a scope after a
 *       day or more registers it again first.
 * </ul>
 *
 * The store remembers the scopes it has met, at most {@value #MAX_REMEMBERED} (then it starts
 * again, and registers each scope it meets again once).
 */
public final class ScopeRegistry {
  /** How often, at most, a store refreshes the row of a scope it writes records of. */
  static final int REFRESH_HOURS = 1;

  /** How long a scope row without records must have gone unrefreshed before it is purged. */
  public static final Duration ORPHAN_AGE = Duration.ofDays(1);

  static final int MAX_REMEMBERED = 4096;

  private static final long REFRESH_NANOS = TimeUnit.HOURS.toNanos(REFRESH_HOURS);

  /**
   * A scope met under its id; {@code refreshedAt} is the {@link #nanoTime} of the store's last
   * registration of it, when {@code refreshed}.
   */
  private record Known(String scope, boolean refreshed, long refreshedAt) {}

  private final Map<Long, Known> known = new ConcurrentHashMap<>();
  private final SqlAccessor db;
  private final LongSupplier nanoTime;

  public ScopeRegistry(SqlAccessor db) {
    this(db, System::nanoTime);
  }

  /** A registry whose refresh interval is measured on {@code nanoTime}. */
  public ScopeRegistry(SqlAccessor db, LongSupplier nanoTime) {
    this.db = db;
    this.nanoTime = nanoTime;
  }

  /** Before records of {@code key}'s scope are written: registers or refreshes it when due. */
  public void beforeWrite(Connection c, int timeout, RecordKey key) throws SQLException {
    long id = key.scopeId();
    Known k = known.get(id);
    long now = nanoTime.getAsLong();
    if (k != null) {
      if (!k.scope().equals(key.scope())) {
        throw collision(key.scope(), id, k.scope());
      }
      if (k.refreshed() && now - k.refreshedAt() < REFRESH_NANOS) {
        return;
      }
    }
    register(c, timeout, key);
    remember(id, new Known(key.scope(), true, now));
  }

  /** Before records of {@code key}'s scope are read or deleted: refuses another scope's id. */
  public void beforeRead(Connection c, int timeout, RecordKey key) throws SQLException {
    long id = key.scopeId();
    Known k = known.get(id);
    if (k != null) {
      if (!k.scope().equals(key.scope())) {
        throw collision(key.scope(), id, k.scope());
      }
      return;
    }
    String stored = storedText(c, timeout, key);
    if (stored == null) {
      return; // no scope has records under the id
    }
    if (!stored.equals(key.scope())) {
      throw collision(key.scope(), id, stored);
    }
    remember(id, new Known(key.scope(), false, 0));
  }

  /** Forgets every scope met, as when the tables may have been created again. */
  public void forget() {
    known.clear();
  }

  private void register(Connection c, int timeout, RecordKey key) throws SQLException {
    SqlStatements sql = db.statements();
    Values scope = Values.of(key, null);
    if (db.update(c, timeout, sql.refreshScope(), scope) == 1) {
      return;
    }
    // No row of this text under the id (or, where connections count changed rows, one refreshed
    // in the same microsecond): write one unless the id has a row, and see whose it is.
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        db.update(c, timeout, sql.insertScope(), scope);
      } catch (SQLException e) {
        if (!sql.isDuplicateKey(e)) {
          throw e;
        }
      }
      String stored = storedText(c, timeout, key);
      if (stored != null) {
        if (!stored.equals(key.scope())) {
          throw collision(key.scope(), key.scopeId(), stored);
        }
        return;
      }
      // purged between the insert and the read: write it again
    }
    throw new SQLException("the row of the scope in " + sql.scopeTable() + " was deleted thrice");
  }

  private String storedText(Connection c, int timeout, RecordKey key) throws SQLException {
    SqlStatements sql = db.statements();
    return db.queryRow(
        c, timeout, sql.readScope(), Values.of(key, null), rs -> sql.readText(rs, 1));
  }

  private void remember(long id, Known k) {
    if (known.size() >= MAX_REMEMBERED) {
      known.clear();
    }
    known.put(id, k);
  }

  /** The refusal of {@code scope}, whose id {@code other} has. */
  private IdempotencyConfigurationException collision(String scope, long id, String other) {
    return new IdempotencyConfigurationException(
        "scope \""
            + scope
            + "\" cannot be used with table "
            + db.statements().table()
            + ": its scope id "
            + id
            + " (the first 64 bits of its SHA-256) is registered in "
            + db.statements().scopeTable()
            + " for the scope \""
            + other
            + "\", and the records of two scopes never share an id. Rename one of the two scopes"
            + " (the scope of @Idempotent or of the policy); nothing was written for this call");
  }
}
