package dev.idempotent.jdbc.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.jdbc.JdbcDialect;
import dev.idempotent.jdbc.JdbcStoreException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code createTable(true)}: the store's tables created when it is built, safe for many instances
 * that start together on a database without them (a rolling deploy on an empty database). This
 * class runs the algorithm; a dialect gives only the SQL text of its lock ({@link
 * SqlStatements#schemaLock}, {@link SqlStatements#schemaUnlock}) and the DDL ({@link
 * SchemaScript}).
 *
 * <ol>
 *   <li><b>Look</b>: the record table and {@code <table>_scope} are there (as the driver's metadata
 *       lists them, so that a missing table is no server error) and {@code <table>_meta} holds this
 *       format version: done, with no DDL and no lock. Once the tables are there, a start needs no
 *       right to create tables.
 *   <li><b>Lock</b>: the database's lock for the creation of this table: on PostgreSQL a
 *       transaction-scoped advisory lock, on MySQL/MariaDB {@code GET_LOCK}, both named after the
 *       table and its schema and waited for at most the build's timeout. H2 has no such lock: there
 *       the stores of one JVM take turns (a lock of the JVM per database URL and table).
 *   <li><b>Create</b>, in one read-committed transaction under the lock: look again, and refuse a
 *       record table of another format version or without one ({@link
 *       TableFormat#checkBeforeCreate}, an {@link IdempotencyConfigurationException}); run the DDL
 *       ({@code CREATE ... IF NOT EXISTS}, the format version written before the other tables, so
 *       whoever finds the record table finds its version); check the format; commit; release the
 *       lock.
 *   <li><b>Lost a race</b>: a statement refused because another creator made the same object
 *       meanwhile ({@link #lostRace}: a duplicate key, an object that exists, a deadlock or a
 *       serialization failure, told by SQLState) is rolled back, and after a short pause the
 *       algorithm starts again from the look, which finds the tables complete once the other
 *       creator is done; at most {@value #MAX_ATTEMPTS} creations.
 *   <li><b>Fail</b> on any other error, or on the last race lost, when the look still does not find
 *       the tables complete: {@link #failure} names the table, the database, the SQLState and what
 *       to do (for a missing right, which rights).
 * </ol>
 */
public final class SchemaCreation {
  /** The most times the tables' creation is tried when it keeps losing races. */
  static final int MAX_ATTEMPTS = 5;

  private static final Logger LOG = LoggerFactory.getLogger(SchemaCreation.class);

  /**
   * The SQLStates, beyond a duplicate key ({@link SqlStatements#isDuplicateKey}), of a statement
   * that lost a race to another creator of the same object. PostgreSQL: 42P07 duplicate table,
   * 42710 duplicate object (an index, a type), 40P01 deadlock; MySQL/MariaDB: 42S01 table exists
   * (1050), 40001 deadlock (1213), also PostgreSQL's serialization failure; H2: 42S01 / 42101 table
   * exists, 42S11 / 42111 index exists, 90131 concurrent update, HYT00 lock timeout.
   */
  private static final Set<String> RACE_STATES =
      Set.of(
          "42P07", "42710", "40P01", "40001", "42S01", "42101", "42S11", "42111", "90131", "HYT00");

  /** The SQLStates of a missing right: PostgreSQL 42501, H2 90096. */
  private static final Set<String> PRIVILEGE_STATES = Set.of("42501", "90096");

  /**
   * MySQL/MariaDB's codes of a missing right (SQLState 42000, which syntax errors share): 1044
   * database, 1142 table, 1143 column, 1227 a global right.
   */
  private static final Set<Integer> MYSQL_PRIVILEGE_CODES = Set.of(1044, 1142, 1143, 1227);

  /** The SQLState of a lock for the creation that was not had in time (PostgreSQL's name). */
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  /** The SQLState of a statement its timeout ended (PostgreSQL). */
  private static final String QUERY_CANCELED = "57014";

  private static final Pattern PLAIN_LOCK_NAME = Pattern.compile("[A-Za-z0-9_.:$-]{1,64}");

  /** The locks of the JVM for a database without a lock of its own, by URL and table. */
  private static final Map<String, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();

  private final JdbcDialect dialect;
  private final SqlStatements sql;
  private final TableFormat format;
  private final String location;
  private final int timeoutSeconds;

  /**
   * The creation of {@code table}'s tables in {@code location} (the URL without its password), each
   * statement, and the wait for the lock, bounded by {@code timeoutSeconds}.
   */
  public SchemaCreation(JdbcDialect dialect, String table, String location, int timeoutSeconds) {
    this.dialect = dialect;
    this.sql = SqlStatements.of(dialect, table);
    this.format = new TableFormat(new SqlAccessor(sql), dialect);
    this.location = location;
    this.timeoutSeconds = timeoutSeconds;
  }

  /**
   * Makes sure the tables are there in this format on {@code c}, creating them where they are not.
   *
   * @throws SQLException when they could not be created (see {@link #failure})
   * @throws IdempotencyConfigurationException when the record table is there in another format, or
   *     without one
   */
  public void create(Connection c) throws SQLException {
    SQLException lost = null;
    for (int attempt = 1; ; attempt++) {
      if (complete(c)) {
        if (lost != null) {
          LOG.debug("{} was created meanwhile by another store: {}", sql.table(), lost.toString());
        }
        return;
      }
      if (lost != null) {
        if (!lostRace(lost)) {
          throw lost;
        }
        if (attempt > MAX_ATTEMPTS) {
          throw new SQLException(
              "another creator of the same tables won the race "
                  + MAX_ATTEMPTS
                  + " times in a row, the last time with: "
                  + lost.getMessage(),
              lost.getSQLState(),
              lost.getErrorCode(),
              lost);
        }
        pause(attempt);
      }
      try {
        createLocked(c);
        return;
      } catch (SQLException e) {
        lost = e;
      }
    }
  }

  /**
   * Whether the tables are there and hold this format version; {@code false} also when the look
   * fails or finds them in another format: the look under the lock decides that.
   */
  private boolean complete(Connection c) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    try {
      boolean catalogs = sql.schemasAreCatalogs();
      if (!TableMetadata.of(c, sql.table(), catalogs).exists(c)
          || !TableMetadata.of(c, sql.scopeTable(), catalogs).exists(c)) {
        return false;
      }
      format.check(c, timeoutSeconds);
      return true;
    } catch (SQLException | IdempotencyConfigurationException e) {
      return false;
    } finally {
      if (!autoCommit) {
        c.rollback(); // the look wrote nothing; it leaves no transaction open
      }
    }
  }

  /** One creation, under the lock, in one transaction. */
  private void createLocked(Connection c) throws SQLException {
    String name = lockName(c);
    String lock = sql.schemaLock(name, lockId(name), timeoutSeconds);
    ReentrantLock jvmLock = lock == null ? jvmLock() : null;
    boolean autoCommit = c.getAutoCommit();
    int isolation = c.getTransactionIsolation();
    boolean locked = false;
    try {
      c.setAutoCommit(false);
      if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      }
      try (Statement st = c.createStatement()) {
        st.setQueryTimeout(timeoutSeconds);
        if (lock != null) {
          try (ResultSet rs = st.executeQuery(lock)) {
            locked = rs.next() && rs.getInt(1) == 1 && !rs.wasNull();
          } catch (SQLException e) {
            if (!QUERY_CANCELED.equals(e.getSQLState())) {
              throw e;
            }
            // the statement's timeout ended the wait (PostgreSQL)
          }
          if (!locked) {
            throw lockNotHad(name);
          }
        }
        format.checkBeforeCreate(c, timeoutSeconds);
        for (String ddl : SchemaScript.statements(dialect, sql.table())) {
          st.execute(ddl);
        }
        format.check(c, timeoutSeconds);
        c.commit();
        LOG.info("created the idempotency tables {} in {}", sql.table(), location);
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException r) {
          e.addSuppressed(r);
        }
        throw e;
      }
    } finally {
      try {
        c.setTransactionIsolation(isolation);
        c.setAutoCommit(autoCommit);
        if (locked && sql.schemaUnlock(name) != null) {
          try (Statement st = c.createStatement()) {
            st.setQueryTimeout(timeoutSeconds);
            st.execute(sql.schemaUnlock(name));
          }
        }
      } catch (SQLException e) {
        LOG.warn(
            "could not release the lock {} or restore the connection after creating {}: {}",
            name,
            sql.table(),
            e.toString());
      } finally {
        if (jvmLock != null) {
          jvmLock.unlock();
        }
      }
    }
  }

  /** The lock of this JVM for the tables, held when it returns. */
  private ReentrantLock jvmLock() throws SQLException {
    ReentrantLock lock =
        JVM_LOCKS.computeIfAbsent(location + " " + sql.table(), k -> new ReentrantLock());
    try {
      if (lock.tryLock(timeoutSeconds, TimeUnit.SECONDS)) {
        return lock;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while waiting to create " + sql.table(), e);
    }
    throw lockNotHad("of this JVM for " + sql.table());
  }

  private SQLException lockNotHad(String name) {
    return new SQLException(
        "waited "
            + timeoutSeconds
            + " s for the lock "
            + name
            + ", which another store holds while it creates the same tables",
        LOCK_NOT_AVAILABLE);
  }

  /**
   * The name of the lock for the tables: {@code idempotent:<schema>.<table>} as the metadata names
   * them (the database's on MySQL/MariaDB), or a digest of it where that is longer than 64
   * characters or holds other characters than letters, digits and {@code _.:$-}.
   */
  private String lockName(Connection c) throws SQLException {
    TableMetadata t = TableMetadata.of(c, sql.table(), sql.schemasAreCatalogs());
    String schema = t.catalog() != null ? t.catalog() : t.schema();
    String name = "idempotent:" + (schema == null ? "" : schema + ".") + t.name();
    if (PLAIN_LOCK_NAME.matcher(name).matches()) {
      return name;
    }
    return "idempotent:" + HexFormat.of().formatHex(sha256(name), 0, 16);
  }

  /** The number of the lock named {@code name}: the first 64 bits of its SHA-256. */
  static long lockId(String name) {
    return ByteBuffer.wrap(sha256(name)).getLong();
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private static void pause(int attempt) throws SQLException {
    try {
      Thread.sleep(25L * attempt + ThreadLocalRandom.current().nextLong(25L * attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while waiting to create the tables again", e);
    }
  }

  /**
   * Whether {@code e} says that the statement lost a race to another creator of the same object: by
   * SQLState (see {@link #RACE_STATES}), for {@code e} or one chained to it.
   */
  boolean lostRace(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      String state = s.getSQLState();
      if (state != null && (RACE_STATES.contains(state) || sql.isDuplicateKey(s))) {
        return true;
      }
    }
    return false;
  }

  private static boolean missingRight(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if ((s.getSQLState() != null && PRIVILEGE_STATES.contains(s.getSQLState()))
          || MYSQL_PRIVILEGE_CODES.contains(s.getErrorCode())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The store's exception for {@code e}, thrown by {@link #create}: what failed, and what to do.
   */
  public JdbcStoreException failure(SQLException e) {
    String t = sql.table();
    String script =
        dialect.schemaResource()
            + " (in idempotent-store-jdbc; replace the table name if you chose"
            + " another)";
    String rights =
        "a store on tables that are there needs only SELECT, INSERT, UPDATE and DELETE on "
            + t
            + " and "
            + sql.scopeTable()
            + " and SELECT on "
            + sql.metaTable();
    String advice;
    if (missingRight(e)) {
      advice =
          "the database user may not create them: for the first start give it the right to"
              + " create tables there (PostgreSQL: CREATE on the schema; MySQL/MariaDB: CREATE,"
              + " INSERT and SELECT on the database), or create them once with "
              + script
              + " and build the store without createTable(true) ("
              + rights
              + ")";
    } else if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
      advice =
          "see what the other store waits on (PostgreSQL: pg_locks and pg_stat_activity;"
              + " MySQL/MariaDB: SHOW PROCESSLIST), or create the tables once with "
              + script;
    } else if (lostRace(e)) {
      advice =
          "build the store again, or create the tables once with "
              + script
              + " before the instances start";
    } else {
      advice =
          "create them once with "
              + script
              + " and build the store without createTable(true) ("
              + rights
              + ")";
    }
    return new JdbcStoreException(
        "cannot create the idempotency table "
            + t
            + " (and "
            + sql.scopeTable()
            + ", "
            + sql.metaTable()
            + ") in "
            + location
            + ": "
            + (e.getSQLState() == null ? "" : "[" + e.getSQLState() + "] ")
            + JdbcUrls.withoutPassword(e.getMessage())
            + ". What to do: "
            + advice,
        e);
  }
}
