package dev.idempotent.jdbc;

import dev.idempotent.jdbc.internal.Claimed;
import dev.idempotent.jdbc.internal.DialectSql;
import dev.idempotent.jdbc.internal.JdbcUrls;
import dev.idempotent.jdbc.internal.RedactedSqlErrors;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link IdempotencyStore} in one table of PostgreSQL, MySQL/MariaDB or H2, over plain JDBC.
 *
 * <pre>{@code
 * JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
 *     .table("idempotency_record")         // default
 *     .queryTimeout(Duration.ofSeconds(5)) // default
 *     .build();
 * }</pre>
 *
 * <p>The table is created by the DDL shipped for each dialect ({@link JdbcDialect#schemaResource()}, for example
 * {@code dev/idempotent/jdbc/schema-postgresql.sql}), or by the store itself with {@link Builder#createTable
 * createTable(true)}. Each claim is a single statement (PostgreSQL {@code INSERT ... ON CONFLICT}, MySQL
 * {@code INSERT ... ON DUPLICATE KEY UPDATE}; H2 inserts and, on a duplicate key, updates an expired row),
 * followed by one {@code SELECT} only when it did not win. Completion, release and renewal are single
 * statements that match only the caller's own live claim. Every lease and expiry is computed and compared on
 * the database's clock. Each call takes its own short autocommit connection from the {@link DataSource};
 * with {@link Builder#connectionProvider} the completion joins the caller's transaction instead, and is never
 * written anywhere else (see {@link #complete}). Errors carry no bound value (see {@link JdbcStoreException}).
 *
 * <p>Expired rows behave as missing ones and are replaced in place; {@link #purgeExpired(int)} (or
 * {@link Builder#purgeEvery}) deletes them in bounded batches.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {
  /** The longest scope or key this store indexes, in characters; longer ones arrive digested. */
  public static final int MAX_KEY_LENGTH = 255;

  /** The default table name. */
  public static final String DEFAULT_TABLE = "idempotency_record";

  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
  private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");
  private static final Set<String> MISSING_TABLE_STATES = Set.of("42P01", "42S02", "42S03", "42S04");
  private static final int MAX_CLAIM_ATTEMPTS = 5;
  private static final int MAX_PURGE_BATCHES = 10_000;
  private static final int MAX_REMEMBERED_FAILURES = 10_000;

  private final DataSource dataSource;
  private final String table;
  private final JdbcDialect dialect;
  private final DialectSql sql;
  private final String readSql;
  private final String completeSql;
  private final String releaseSql;
  private final String renewSql;
  private final int timeoutSeconds;
  private final int timeoutMillis;
  /** Whether this store bounds its calls by the connection's network timeout (see {@link #run}). */
  private volatile boolean networkTimeouts;
  private final ConnectionProvider connectionProvider;
  private final AutoCloseable ownedResource;
  private final ScheduledExecutorService purger;
  private volatile String location;
  /** MySQL/MariaDB: the server's max_allowed_packet as last read, 0 until read (see {@link #packetLimit}). */
  private volatile long maxAllowedPacket;
  /**
   * With a connection provider: owners whose completion failed, and where it belongs. Only failures are kept,
   * at most {@link #MAX_REMEMBERED_FAILURES} (the oldest are forgotten first).
   */
  private final Map<String, Belongs> failedCompletions = Collections.synchronizedMap(
      new LinkedHashMap<String, Belongs>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Belongs> eldest) {
          return size() > MAX_REMEMBERED_FAILURES;
        }
      });

  private JdbcIdempotencyStore(Builder b, JdbcDialect dialect, String location) {
    this.dataSource = b.dataSource;
    this.table = b.table;
    this.dialect = dialect;
    this.sql = DialectSql.of(dialect, b.table);
    this.readSql = sql.readSql();
    this.completeSql = sql.completeSql();
    this.releaseSql = sql.releaseSql();
    this.renewSql = sql.renewSql();
    this.timeoutSeconds = (int) Math.max(1, (b.queryTimeout.toMillis() + 999) / 1000);
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, b.queryTimeout.toMillis()));
    this.networkTimeouts = dialect != JdbcDialect.H2;
    this.connectionProvider = b.connectionProvider;
    this.ownedResource = b.ownedResource;
    this.location = location;
    if (b.purgeInterval != null) {
      int batchSize = b.purgeBatchSize;
      purger = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "idempotent-jdbc-purge");
        t.setDaemon(true);
        return t;
      });
      long ms = b.purgeInterval.toMillis();
      purger.scheduleWithFixedDelay(() -> scheduledPurge(batchSize), ms, ms, TimeUnit.MILLISECONDS);
    } else {
      purger = null;
    }
  }

  /** Starts building a store on {@code dataSource}, which the store uses but does not close. */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /** The dialect in use. */
  public JdbcDialect dialect() {
    return dialect;
  }

  /** The table in use. */
  public String table() {
    return table;
  }

  @Override
  public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    long leaseMicros = micros(lease, "lease");
    return run("claim", key, (c, t) -> {
      for (int attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt++) {
        Claimed claimed = sql.claim(c, key.scope(), key.key(), ownerToken, fingerprint, leaseMicros, t);
        if (claimed == Claimed.EXISTS || claimed == Claimed.UNKNOWN) {
          Optional<IdempotencyRecord> live = read(c, key, t);
          if (live.isPresent()) {
            return claimed == Claimed.UNKNOWN && isOwnClaim(live.get(), ownerToken)
                ? ClaimResult.acquired() : ClaimResult.existing(live.get());
          }
          // Nothing live: the key is free or its record expired (a claim that did not say what it did found
          // one of those too, since a claim it inserted would be live).
          claimed = sql.claimExpired(c, key.scope(), key.key(), ownerToken, fingerprint, leaseMicros, t);
        }
        if (claimed == Claimed.ACQUIRED) {
          return ClaimResult.acquired();
        }
        if (claimed == Claimed.TOOK_OVER) {
          LOG.debug("took over the expired claim of {}", key);
          return ClaimResult.tookOver();
        }
        Optional<IdempotencyRecord> existing = read(c, key, t);
        if (claimed == Claimed.UNKNOWN && existing.isPresent() && isOwnClaim(existing.get(), ownerToken)) {
          return ClaimResult.acquired();
        }
        if (existing.isPresent()) {
          return ClaimResult.existing(existing.get());
        }
        // The record was released or expired between the two statements: claim again.
      }
      throw new SQLException("the record changed under every one of " + MAX_CLAIM_ATTEMPTS + " claim attempts");
    });
  }

  private static boolean isOwnClaim(IdempotencyRecord record, String ownerToken) {
    return !record.isCompleted() && record.ownerToken().equals(ownerToken);
  }

  /**
   * Records the outcome. With a {@link Builder#connectionProvider connection provider} that returns the caller's
   * connection, the update runs there, and any failure, or finding the claim no longer this caller's, is an
   * {@link OutcomeNotRecordedException} that fails the call: the completion belongs to that transaction and is
   * never written on another connection, then or later (the store remembers such owners, so a repeated
   * {@code complete} for one is refused too). A completion that failed on the store's own connection stays on
   * the store's own connections when it is tried again. An outcome larger than the database accepts is an
   * {@link OutcomeNotRecordedException} that releases the key.
   */
  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    Objects.requireNonNull(outcome, "outcome");
    long ttlMicros = micros(ttl, "ttl");
    SqlWork<Boolean> work = (c, t) -> {
      long limit = packetLimit(c, outcome.length);
      try (PreparedStatement ps = prepare(c, completeSql, t)) {
        ps.setBytes(1, outcome);
        ps.setLong(2, ttlMicros);
        sql.bindKeyPart(ps, 3, key.scope());
        sql.bindKeyPart(ps, 4, key.key());
        ps.setString(5, ownerToken);
        return ps.executeUpdate() == 1;
      } catch (SQLException e) {
        OutcomeNotRecordedException tooLarge = tooLarge(key, outcome, limit, e);
        if (tooLarge != null) {
          throw tooLarge;
        }
        throw e;
      }
    };
    if (connectionProvider == null) {
      return run("complete", key, work);
    }
    Belongs earlier = failedCompletions.get(ownerToken);
    if (earlier == Belongs.OWN_CONNECTION) {
      return completeOnOwnConnection(key, ownerToken, work);
    }
    if (earlier == Belongs.CALLER_TRANSACTION) {
      throw OutcomeNotRecordedException.failingTheCall("the outcome of " + key + " belongs to the caller's"
          + " transaction, where recording it already failed; it is never recorded on another connection", null);
    }
    return completeInCallerTransaction(key, ownerToken, work);
  }

  /** Where a completion that failed belongs, so that trying it again never switches connections. */
  private enum Belongs { CALLER_TRANSACTION, OWN_CONNECTION }

  private boolean completeOnOwnConnection(RecordKey key, String ownerToken, SqlWork<Boolean> work) {
    try {
      boolean done = run("complete", key, work);
      failedCompletions.remove(ownerToken);
      return done;
    } catch (OutcomeNotRecordedException e) {
      failedCompletions.remove(ownerToken);
      throw e;
    } catch (RuntimeException e) {
      failedCompletions.put(ownerToken, Belongs.OWN_CONNECTION);
      throw e;
    }
  }

  private boolean completeInCallerTransaction(RecordKey key, String ownerToken, SqlWork<Boolean> work) {
    Connection c;
    try {
      c = connectionProvider.connection();
    } catch (SQLException | RuntimeException e) {
      failedCompletions.put(ownerToken, Belongs.CALLER_TRANSACTION);
      throw notInCallerTransaction(key, "getting the caller's connection failed", e);
    }
    if (c == null) {
      return completeOnOwnConnection(key, ownerToken, work);
    }
    Exception failure = null;
    boolean done = false;
    try {
      done = work.apply(c, timeoutSeconds);
    } catch (SQLException | RuntimeException e) {
      failure = e;
    } finally {
      try {
        connectionProvider.done(c);
      } catch (SQLException | RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null || !done) {
      failedCompletions.put(ownerToken, Belongs.CALLER_TRANSACTION);
      throw notInCallerTransaction(key, failure != null ? "the update failed"
          : "the claim is no longer this call's (its lease ended and another caller took the key over, or the"
              + " transaction's snapshot is older than the claim)", failure);
    }
    return true;
  }

  private OutcomeNotRecordedException notInCallerTransaction(RecordKey key, String why, Exception failure) {
    Throwable cause;
    String detail;
    if (failure instanceof SQLException s) {
      cause = failure("complete (in the caller's transaction)", key, s);
      detail = " (" + (s.getSQLState() == null ? "" : "[" + s.getSQLState() + "] ")
          + RedactedSqlErrors.message(s.getMessage(), key) + ")";
    } else if (failure instanceof OutcomeNotRecordedException n) {
      cause = n;
      detail = " (" + n.getMessage() + ")";
    } else {
      cause = failure == null ? null : RedactedSqlErrors.copyOfAny(failure, key);
      detail = cause == null ? "" : " (" + cause.getMessage() + ")";
    }
    return OutcomeNotRecordedException.failingTheCall("the outcome of " + key + " was not recorded in the caller's"
        + " transaction: " + why + detail + "; roll the transaction back: the outcome is never recorded on another"
        + " connection, and the claim frees itself when its lease ends", cause);
  }

  /**
   * MySQL/MariaDB only, for outcomes of 64 KiB or more: the server's {@code max_allowed_packet}, read on
   * {@code c} when unknown and again whenever the outcome is at least half the last value read (it may have been
   * raised); 0 when not known.
   */
  private long packetLimit(Connection c, int outcomeLength) throws SQLException {
    if (dialect != JdbcDialect.MYSQL || outcomeLength < 64 * 1024) {
      return 0;
    }
    long known = maxAllowedPacket;
    if (known > 0 && outcomeLength < known / 2) {
      return known;
    }
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@max_allowed_packet")) {
      known = rs.next() ? rs.getLong(1) : 0;
    }
    maxAllowedPacket = known;
    return known;
  }

  /**
   * The failure of a completion whose outcome is larger than the database accepts, or {@code null} when
   * {@code e} is something else: a value too long for its column (SQLState 22001) or a limit (54000), a packet
   * error that names {@code max_allowed_packet}, or, on MySQL/MariaDB, a connection the server dropped while
   * receiving an outcome whose statement is at least {@code max_allowed_packet}.
   */
  private OutcomeNotRecordedException tooLarge(RecordKey key, byte[] outcome, long limit, SQLException e) {
    boolean columnTooSmall = false;
    boolean tooLarge = false;
    for (Throwable t = e; t != null && !tooLarge && !columnTooSmall; t = t.getCause()) {
      if (t instanceof SQLException s) {
        columnTooSmall = "22001".equals(s.getSQLState()) || s.getErrorCode() == 1406;
        tooLarge = "54000".equals(s.getSQLState()) || s.getErrorCode() == 1153 || s.getErrorCode() == 1301;
      }
      String m = t.getMessage();
      tooLarge |= m != null && m.toLowerCase(Locale.ROOT).contains("max_allowed_packet");
      if (t.getCause() == t) {
        break;
      }
    }
    if (!tooLarge && !columnTooSmall && limit > 0 && e.getSQLState() != null && e.getSQLState().startsWith("08")) {
      tooLarge = statementSize(key, outcome) >= limit;
    }
    if (!tooLarge && !columnTooSmall) {
      return null;
    }
    String size = outcome.length + " bytes";
    String fix;
    if (columnTooSmall) {
      fix = "the outcome column of table " + table + " is too small for it: give it the type in "
          + dialect.schemaResource();
    } else if (dialect == JdbcDialect.MYSQL) {
      fix = "that is more than the server's max_allowed_packet" + (limit > 0 ? " (" + limit + " bytes)" : "")
          + " lets through: raise max_allowed_packet on the server (and the driver's maxAllowedPacket, if set)"
          + " above " + statementSize(key, outcome) + " bytes, or return a smaller result";
    } else {
      fix = "that is more than the database takes in one value: return a smaller result";
    }
    return OutcomeNotRecordedException.releasingTheKey("the outcome of " + key + " is " + size + ", and " + fix
        + " (" + RedactedSqlErrors.message(e.getMessage(), key) + ")", RedactedSqlErrors.copyOf(e, key));
  }

  /**
   * The size of the completion statement as MySQL/MariaDB drivers send it as text: the outcome with the bytes
   * they escape counted twice, the key parts likewise, and the rest of the statement.
   */
  private int statementSize(RecordKey key, byte[] outcome) {
    long size = completeSql.length() + 512L + 2L * (key.scope().length() + key.key().length()) * 4;
    for (byte b : outcome) {
      size += b == 0 || b == '\'' || b == '"' || b == '\\' ? 2 : 1;
    }
    return (int) Math.min(Integer.MAX_VALUE, size);
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    return run("release", key, (c, t) -> {
      try (PreparedStatement ps = prepare(c, releaseSql, t)) {
        sql.bindKeyPart(ps, 1, key.scope());
        sql.bindKeyPart(ps, 2, key.key());
        ps.setString(3, ownerToken);
        return ps.executeUpdate() == 1;
      }
    });
  }

  /**
   * Deletes the live row of {@code key}, whatever its status and owner, in one statement on its own connection
   * (never in a caller's transaction). An expired row is left for {@link #purgeExpired}.
   */
  @Override
  public boolean delete(RecordKey key) {
    Objects.requireNonNull(key, "key");
    return run("delete", key, (c, t) -> {
      try (PreparedStatement ps = prepare(c, sql.deleteSql(), t)) {
        sql.bindKeyPart(ps, 1, key.scope());
        sql.bindKeyPart(ps, 2, key.key());
        return ps.executeUpdate() > 0;
      }
    });
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    long leaseMicros = micros(lease, "lease");
    return run("renew", key, (c, t) -> {
      try (PreparedStatement ps = prepare(c, renewSql, t)) {
        ps.setLong(1, leaseMicros);
        sql.bindKeyPart(ps, 2, key.scope());
        sql.bindKeyPart(ps, 3, key.key());
        ps.setString(4, ownerToken);
        return ps.executeUpdate() == 1;
      }
    });
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    Objects.requireNonNull(key, "key");
    return run("read", key, (c, t) -> read(c, key, t));
  }

  private Optional<IdempotencyRecord> read(Connection c, RecordKey key, int statementTimeout) throws SQLException {
    try (PreparedStatement ps = prepare(c, readSql, statementTimeout)) {
      sql.bindKeyPart(ps, 1, key.scope());
      sql.bindKeyPart(ps, 2, key.key());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        String status = rs.getString(1);
        String owner = rs.getString(2);
        String fingerprint = rs.getString(3);
        byte[] outcome = rs.getBytes(4);
        Duration left = Duration.of(rs.getLong(5), ChronoUnit.MICROS);
        if (DialectSql.STATUS.equals(status)) {
          return Optional.of(IdempotencyRecord.inProgress(key, owner, fingerprint, left));
        }
        return Optional.of(IdempotencyRecord.completed(key, owner, fingerprint, outcome == null ? new byte[0] : outcome,
            left));
      }
    }
  }

  @Override
  public int maxKeyLength() {
    return MAX_KEY_LENGTH;
  }

  /**
   * Deletes expired records in batches of at most {@code batchSize} rows, each in its own short transaction,
   * until a batch finds fewer than {@code batchSize}; returns how many rows were deleted. Expired records
   * already behave as missing ones, so purging only reclaims space.
   *
   * @param batchSize 1 to 100,000
   */
  public int purgeExpired(int batchSize) {
    requireBatchSize(batchSize);
    int total = 0;
    for (int batch = 0; batch < MAX_PURGE_BATCHES; batch++) {
      int deleted = purgeBatch(batchSize);
      total += deleted;
      if (deleted < batchSize) {
        return total;
      }
    }
    LOG.warn("purge of {} stopped after {} batches ({} rows); the next purge continues", table, MAX_PURGE_BATCHES,
        total);
    return total;
  }

  /** Deletes at most {@code batchSize} expired rows in one statement. */
  int purgeBatch(int batchSize) {
    return runWithQueryTimeout("purge", null, (c, t) -> {
      try (PreparedStatement ps = prepare(c, sql.purgeBatchSql(), t)) {
        ps.setInt(1, batchSize);
        return ps.executeUpdate();
      }
    });
  }

  private void scheduledPurge(int batchSize) {
    try {
      int n = purgeExpired(batchSize);
      if (n > 0) {
        LOG.debug("purged {} expired idempotency records from {}", n, table);
      }
    } catch (RuntimeException e) {
      LOG.warn("scheduled purge of {} failed: {}", table, e.getMessage());
    }
  }

  /** Stops the scheduled purge and closes what the store owns; a {@link DataSource} it was given stays open. */
  @Override
  public void close() {
    if (purger != null) {
      purger.shutdownNow();
    }
    if (ownedResource != null) {
      try {
        ownedResource.close();
      } catch (Exception e) {
        LOG.warn("closing the connection pool of the idempotency store failed: {}", e.toString());
      }
    }
  }

  @Override
  public String toString() {
    return "JdbcIdempotencyStore{" + dialect + ", table=" + table + ", " + location + "}";
  }

  // ---------------------------------------------------------------------------------------------------------

  @FunctionalInterface
  /** Work on one connection; {@code statementTimeout} is the query timeout in seconds to set, 0 for none. */
  private interface SqlWork<T> {
    T apply(Connection c, int statementTimeout) throws SQLException;
  }

  /**
   * Runs one store operation on its own connection from the pool. On PostgreSQL and MySQL/MariaDB the timeout is
   * the connection's network timeout, set for the call and restored after it: a hung or unreachable database,
   * or a lock wait, fails the call within the timeout. That is a socket option, where a JDBC query timeout
   * costs a timer task per statement (and a wake-up of the driver's timer thread); on H2, and where the driver
   * does not support network timeouts, every statement gets the query timeout instead.
   */
  private <T> T run(String operation, RecordKey key, SqlWork<T> work) {
    return run(operation, key, work, networkTimeouts);
  }

  private <T> T runWithQueryTimeout(String operation, RecordKey key, SqlWork<T> work) {
    return run(operation, key, work, false);
  }

  private <T> T run(String operation, RecordKey key, SqlWork<T> work, boolean useNetworkTimeout) {
    try (Connection c = dataSource.getConnection()) {
      if (location == null) {
        location = describe(c.getMetaData());
      }
      int restoreNetworkTimeout = -1;
      if (useNetworkTimeout) {
        try {
          restoreNetworkTimeout = c.getNetworkTimeout();
          c.setNetworkTimeout(Runnable::run, timeoutMillis);
        } catch (SQLFeatureNotSupportedException | AbstractMethodError unsupported) {
          networkTimeouts = false;
          LOG.debug("the JDBC driver has no network timeouts; using query timeouts instead");
        }
      }
      int statementTimeout = restoreNetworkTimeout >= 0 ? 0 : timeoutSeconds;
      boolean autoCommit = c.getAutoCommit();
      try {
        T result = work.apply(c, statementTimeout);
        if (!autoCommit) {
          c.commit();
        }
        return result;
      } catch (SQLException | RuntimeException e) {
        if (!autoCommit) {
          try {
            c.rollback();
          } catch (SQLException r) {
            e.addSuppressed(r);
          }
        }
        throw e;
      } finally {
        if (restoreNetworkTimeout >= 0 && !c.isClosed()) {
          try {
            c.setNetworkTimeout(Runnable::run, restoreNetworkTimeout);
          } catch (SQLException e) {
            LOG.debug("could not restore the network timeout of a pooled connection", e);
          }
        }
      }
    } catch (SQLException e) {
      throw failure(operation, key, e);
    }
  }

  private static PreparedStatement prepare(Connection c, String statement, int statementTimeout) throws SQLException {
    PreparedStatement ps = c.prepareStatement(statement);
    if (statementTimeout > 0) {
      ps.setQueryTimeout(statementTimeout);
    }
    return ps;
  }

  /**
   * The store's exception for a driver error: the message names the operation, the redacted key, the URL and the
   * table, with the SQLState and the first line of the driver's message without its values; the cause is a
   * {@link RedactedSqlErrors copy} of the driver's error, so that no bound value (key, outcome) is carried.
   */
  private JdbcStoreException failure(String operation, RecordKey key, SQLException e) {
    String where = location == null ? "(database not reached yet)" : location;
    SQLException cause = RedactedSqlErrors.copyOf(e, key);
    if (isMissingTable(e)) {
      return new JdbcStoreException("idempotency table " + table + " does not exist in " + where + ": run "
          + dialect.schemaResource() + " (in idempotent-store-jdbc; replace the table name if you chose another)"
          + " or build the store with createTable(true) / set idempotent.jdbc.create-table=true", cause);
    }
    return new JdbcStoreException("idempotency store " + operation + (key == null ? "" : " of " + key) + " failed on "
        + where + " (table " + table + "): " + (e.getSQLState() == null ? "" : "[" + e.getSQLState() + "] ")
        + RedactedSqlErrors.message(e.getMessage(), key), cause);
  }

  private static boolean isMissingTable(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if ((s.getSQLState() != null && MISSING_TABLE_STATES.contains(s.getSQLState())) || s.getErrorCode() == 1146) {
        return true;
      }
    }
    return false;
  }

  private static String describe(DatabaseMetaData md) {
    try {
      return JdbcUrls.withoutPassword(md.getURL());
    } catch (SQLException | RuntimeException e) {
      return "(JDBC URL unavailable)";
    }
  }

  private static long micros(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
    try {
      return Math.max(1, d.toNanos() / 1000);
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE / 1000; // about 292 years: far beyond any table's life
    }
  }

  private static void requireBatchSize(int batchSize) {
    if (batchSize < 1 || batchSize > 100_000) {
      throw new IllegalArgumentException("batchSize must be between 1 and 100000, was " + batchSize);
    }
  }

  static List<String> schemaStatements(JdbcDialect dialect, String table) {
    String resource = dialect.schemaResource();
    String text;
    try (InputStream in = JdbcIdempotencyStore.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource + " in idempotent-store-jdbc");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
    StringBuilder body = new StringBuilder();
    for (String line : text.split("\n")) {
      if (!line.strip().startsWith("--")) {
        body.append(line).append('\n');
      }
    }
    String simpleName = table.substring(table.lastIndexOf('.') + 1);
    String ddl = body.toString()
        .replaceAll("\\b" + DEFAULT_TABLE + "(_[a-z_]+)\\b", simpleName + "$1")
        .replaceAll("\\b" + DEFAULT_TABLE + "\\b", table);
    List<String> statements = new ArrayList<>();
    for (String s : ddl.split(";")) {
      if (!s.isBlank()) {
        statements.add(s.strip());
      }
    }
    return statements;
  }

  /** Builds a {@link JdbcIdempotencyStore}; immutable settings are checked as they are given. */
  public static final class Builder {
    private final DataSource dataSource;
    private String table = DEFAULT_TABLE;
    private JdbcDialect dialect;
    private ConnectionProvider connectionProvider;
    private Duration queryTimeout = Duration.ofSeconds(5);
    private boolean createTable;
    private Duration purgeInterval;
    private int purgeBatchSize;
    private AutoCloseable ownedResource;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
    }

    /**
     * The table, optionally schema-qualified ({@code app.idempotency_record}); default
     * {@code idempotency_record}. Letters, digits and underscores only.
     */
    public Builder table(String table) {
      if (table == null || !TABLE_NAME.matcher(table).matches()) {
        throw new IllegalArgumentException("table must be a plain or schema-qualified SQL name of letters, digits and"
            + " underscores, like idempotency_record or app.idempotency_record; was " + table);
      }
      this.table = table;
      return this;
    }

    /** The SQL dialect; by default detected from the database product name when the store is built. */
    public Builder dialect(JdbcDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect must not be null (leave it unset to detect it)");
      return this;
    }

    /**
     * Records completions on the caller's transaction (see {@link ConnectionProvider}); by default each
     * completion commits on its own connection.
     */
    public Builder connectionProvider(ConnectionProvider connectionProvider) {
      this.connectionProvider = Objects.requireNonNull(connectionProvider, "connectionProvider must not be null");
      return this;
    }

    /** The timeout set on every statement, whole seconds (rounded up); default 5 s. */
    public Builder queryTimeout(Duration queryTimeout) {
      if (queryTimeout == null || queryTimeout.isNegative() || queryTimeout.isZero()
          || queryTimeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("queryTimeout must be between 1 ms and 1 h, like Duration.ofSeconds(5);"
            + " was " + queryTimeout);
      }
      this.queryTimeout = queryTimeout;
      return this;
    }

    /**
     * When {@code true}, {@link #build()} runs the dialect's DDL ({@code CREATE TABLE IF NOT EXISTS}); for demos
     * and tests. Default {@code false}: run {@link JdbcDialect#schemaResource()} with your migrations.
     */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /**
     * Purges expired records every {@code interval} on one daemon thread that {@link #close()} stops,
     * {@code batchSize} rows per statement.
     */
    public Builder purgeEvery(Duration interval, int batchSize) {
      if (interval == null || interval.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("purge interval must be at least 1 s, like Duration.ofMinutes(10); was "
            + interval);
      }
      requireBatchSize(batchSize);
      this.purgeInterval = interval;
      this.purgeBatchSize = batchSize;
      return this;
    }

    /**
     * Makes {@link JdbcIdempotencyStore#close()} close {@code resource} too, for a connection pool created only
     * for this store.
     */
    public Builder closing(AutoCloseable resource) {
      this.ownedResource = Objects.requireNonNull(resource, "resource must not be null");
      return this;
    }

    /**
     * Builds the store. Connects once when the dialect must be detected or the table created.
     *
     * @throws JdbcStoreException when the database cannot be reached or the DDL fails
     * @throws IllegalStateException when the database is not one of the supported dialects
     */
    public JdbcIdempotencyStore build() {
      JdbcDialect chosen = dialect;
      String location = null;
      if (chosen == null || createTable) {
        try (Connection c = dataSource.getConnection()) {
          DatabaseMetaData md = c.getMetaData();
          location = describe(md);
          if (chosen == null) {
            String product = md.getDatabaseProductName();
            chosen = JdbcDialect.forProductName(product).orElseThrow(() -> new IllegalStateException(
                "the idempotency store supports PostgreSQL, MySQL/MariaDB and H2, but the database is " + product
                    + ": if it speaks one of those dialects, set it with .dialect(JdbcDialect...)"));
          }
          if (createTable) {
            createTable(c, chosen);
          }
        } catch (SQLException e) {
          throw new JdbcStoreException("cannot " + (createTable ? "create the idempotency table " + table + " in "
              : "detect the SQL dialect of ") + (location == null ? "the DataSource" : location) + ": "
              + JdbcUrls.withoutPassword(e.getMessage()), e);
        }
      }
      JdbcIdempotencyStore store = new JdbcIdempotencyStore(this, chosen, location);
      LOG.info("idempotency store on {} table {} ({})", location == null ? "a DataSource" : location, table, chosen);
      return store;
    }

    private void createTable(Connection c, JdbcDialect chosen) throws SQLException {
      boolean autoCommit = c.getAutoCommit();
      try (Statement st = c.createStatement()) {
        st.setQueryTimeout((int) Math.max(1, queryTimeout.toSeconds()) * 6);
        for (String ddl : schemaStatements(chosen, table)) {
          st.execute(ddl);
        }
        if (!autoCommit) {
          c.commit();
        }
      }
    }
  }
}
