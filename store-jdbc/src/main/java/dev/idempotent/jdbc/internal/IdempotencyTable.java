package dev.idempotent.jdbc.internal;

import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.jdbc.ConnectionProvider;
import dev.idempotent.jdbc.JdbcDialect;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.jdbc.JdbcStoreException;
import dev.idempotent.jdbc.internal.DialectStatements.Inserted;
import dev.idempotent.jdbc.internal.DialectStatements.Param;
import dev.idempotent.jdbc.internal.DialectStatements.Sql;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC store's whole algorithm, on one table, in the {@link DialectStatements statements} of
 * its dialect.
 *
 * <ul>
 *   <li><b>Claim</b>: the fresh-key insert. Won: acquired, in one statement. Otherwise read the
 *       record: a live one is the answer (or, when the insert did not say what it did, this
 *       caller's own claim); an expired one is taken over by one update that matches only that
 *       record (its owner as read) while it is still expired, a takeover when it was in progress.
 *       When the record was released, purged or taken over between two statements, start again, at
 *       most {@value #MAX_CLAIM_ATTEMPTS} times.
 *   <li><b>Complete, release, renew</b>: one statement that matches only the caller's own live
 *       claim. A completion runs on the caller's transaction when the {@link ConnectionProvider}
 *       gives one; it then fails the call rather than being written anywhere else, then or later.
 *       An outcome larger than the database accepts releases the key.
 *   <li><b>Delete</b> (administrative): one statement that deletes the live record of any owner.
 *   <li><b>Purge</b>: bounded batches of expired rows, each its own short transaction. Where the
 *       table has an index whose first column is {@code expires_at} (the shipped DDL's), a batch is
 *       at most that many expired rows found through it. Where it has none, the purge walks the
 *       primary key instead, one chunk of that many rows after the last one walked (kept between
 *       calls) at a time, deleting the chunk's expired rows, and starts again from the beginning
 *       after the end. Which, the store finds with the table's layout, from its indexes.
 * </ul>
 */
public final class IdempotencyTable {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
  private static final int MAX_CLAIM_ATTEMPTS = 5;
  private static final int MAX_PURGE_BATCHES = 10_000;
  private static final int MAX_REMEMBERED_FAILURES = 10_000;
  private static final long NO_CODE = -1;

  /** A column name or an index expression that names {@code expires_at}. */
  private static final Pattern NAMES_EXPIRES_AT =
      Pattern.compile("(?i)(^|[^a-z0-9_$])\"?expires_at\"?([^a-z0-9_$]|$)");

  /** SQLStates of a column that is not there: PostgreSQL, MySQL/MariaDB, H2. */
  private static final Set<String> UNDEFINED_COLUMN_STATES = Set.of("42703", "42S22", "42122");

  private final String table;
  private final JdbcDialect dialect;

  /**
   * The statements for the table's layout, found on first use ({@link #statements}); {@code null}
   * until then.
   */
  private volatile DialectStatements sql;

  /**
   * How the purge finds expired rows, found with {@link #sql} and written before it; {@code null}
   * until then.
   */
  private volatile PurgeWay purgeWay;

  /** Whether the purge way found last has been logged (at the first purge after it was found). */
  private volatile boolean purgeWayLogged;

  /**
   * The walking purge: the primary key of the last row walked, as the database returned it; {@code
   * null} at the beginning of the table. Changed under {@link #walk}.
   */
  private volatile PrimaryKey walkCursor;

  /** Held by a walking purge, so that one walk at a time moves the cursor. */
  private final Object walk = new Object();

  /**
   * The scopes whose text this store has seen written to the scope table, by their id at the
   * table's width: a scope is only known by its id once the text stored under the id is its own.
   */
  private final Map<Long, String> registeredScopes = new ConcurrentHashMap<>();

  private final StoreConnections connections;
  private final ConnectionProvider connectionProvider;
  private volatile boolean warnedNoCode;

  /**
   * MySQL/MariaDB: the server's max_allowed_packet as last read, 0 until read (see {@link
   * #packetLimit}).
   */
  private volatile long maxAllowedPacket;

  /**
   * With a connection provider: owners whose completion failed, and where it belongs. Only failures
   * are kept, at most {@link #MAX_REMEMBERED_FAILURES} (the oldest are forgotten first).
   */
  private final Map<String, Belongs> failedCompletions =
      Collections.synchronizedMap(
          new LinkedHashMap<String, Belongs>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Belongs> eldest) {
              return size() > MAX_REMEMBERED_FAILURES;
            }
          });

  /** Where a completion that failed belongs, so that trying it again never switches connections. */
  private enum Belongs {
    CALLER_TRANSACTION,
    OWN_CONNECTION
  }

  /**
   * How the purge finds expired rows, and why: through the named index on the expiry, or by walking
   * the primary key.
   */
  private record PurgeWay(boolean walks, String why) {}

  /**
   * A primary key ({@code scope_id} or, in the earlier layout, {@code scope}, then {@code
   * idem_key}) as the database returned it, bound back as it is: the walk compares keys only in
   * SQL, in the database's order.
   */
  private record PrimaryKey(Object first, Object key) {}

  /** What one step of the purge did. */
  private record PurgeStep(int deleted, boolean walked, boolean reachedEnd) {}

  /** The values a statement may bind; {@link Param} says which it takes, in what order. */
  private record Values(
      RecordKey key,
      String owner,
      String fingerprint,
      long micros,
      byte[] outcome,
      String previousOwner,
      int limit,
      PrimaryKey after,
      PrimaryKey upTo) {
    Values(
        RecordKey key,
        String owner,
        String fingerprint,
        long micros,
        byte[] outcome,
        String previousOwner,
        int limit) {
      this(key, owner, fingerprint, micros, outcome, previousOwner, limit, null, null);
    }

    static Values of(RecordKey key, String owner) {
      return new Values(key, owner, null, 0, null, null, 0);
    }
  }

  public IdempotencyTable(
      String table,
      JdbcDialect dialect,
      StoreConnections connections,
      ConnectionProvider connectionProvider) {
    this.table = table;
    this.dialect = dialect;
    this.connections = connections;
    this.connectionProvider = connectionProvider;
  }

  public ClaimResult claim(RecordKey key, String owner, String fingerprint, long leaseMicros) {
    Values claim = new Values(key, owner, fingerprint, leaseMicros, null, null, 0);
    return connections.run(
        "claim",
        key,
        (c, t) -> {
          DialectStatements sql = statements(c);
          registerScope(c, t, sql, key.scope(), true);
          for (int attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt++) {
            Inserted inserted = insert(c, t, claim);
            if (inserted == Inserted.WON) {
              return ClaimResult.acquired();
            }
            Stored stored = readStored(c, t, key);
            if (stored == null) {
              continue; // released or purged since the insert: the key is free
            }
            if (inserted == Inserted.UNKNOWN
                && stored.inProgress()
                && owner.equals(stored.owner())) {
              return ClaimResult.acquired();
            }
            if (stored.microsLeft() > 0) {
              return ClaimResult.existing(live(key, stored));
            }
            Values takeOver =
                new Values(key, owner, fingerprint, leaseMicros, null, stored.owner(), 0);
            Sql takeOverSql = stored.owner() == null ? sql.takeOverCompleted() : sql.takeOver();
            if (update(c, t, sql, takeOverSql, takeOver) == 1) {
              if (stored.inProgress()) {
                LOG.debug("took over the expired claim of {}", key);
                return ClaimResult.tookOver();
              }
              return ClaimResult.acquired();
            }
            // Another caller took the expired record over, or it was released, since it was read:
            // claim again.
          }
          throw new SQLException(
              "the record changed under every one of " + MAX_CLAIM_ATTEMPTS + " claim attempts");
        });
  }

  /** Runs the fresh-key insert on {@code c} and says what it did, by the dialect's rule. */
  public Inserted insert(
      Connection c,
      int statementTimeout,
      RecordKey key,
      String owner,
      String fingerprint,
      long leaseMicros)
      throws SQLException {
    return insert(
        c, statementTimeout, new Values(key, owner, fingerprint, leaseMicros, null, null, 0));
  }

  private Inserted insert(Connection c, int statementTimeout, Values values) throws SQLException {
    DialectStatements sql = statements(c);
    boolean code = sql.insertReportsCode();
    try (PreparedStatement ps =
        prepare(c, sql, sql.insertClaim(), values, statementTimeout, code)) {
      int count;
      try {
        count = ps.executeUpdate();
      } catch (SQLException e) {
        if (sql.isDuplicateKey(e)) {
          return Inserted.TAKEN;
        }
        throw layoutMayHaveChanged(e);
      }
      long reported = NO_CODE;
      if (code) {
        try (ResultSet keys = ps.getGeneratedKeys()) {
          reported = keys != null && keys.next() ? keys.getLong(1) : NO_CODE;
        }
      }
      Inserted inserted = sql.inserted(count, reported);
      if (inserted == Inserted.UNKNOWN && !warnedNoCode) {
        warnedNoCode = true;
        LOG.warn(
            "a claim on {} got no LAST_INSERT_ID code back (a proxy between the driver and the"
                + " server may be dropping it), so such claims read their row back to see whose it"
                + " is (one more statement)",
            table);
      }
      return inserted;
    }
  }

  /**
   * A record as stored, live or expired; {@code unreadable} describes a row this store never writes
   * (another status, a claim without an owner, a completed record without an outcome), else {@code
   * null}.
   */
  private record Stored(
      boolean inProgress,
      String owner,
      String fingerprint,
      byte[] outcome,
      long microsLeft,
      String unreadable) {

    IdempotencyRecord record(RecordKey key) {
      Duration left = Duration.of(microsLeft, ChronoUnit.MICROS);
      return inProgress()
          ? IdempotencyRecord.inProgress(key, owner, fingerprint, left)
          : IdempotencyRecord.completed(key, owner, fingerprint, outcome, left);
    }
  }

  /**
   * The failure of a call whose live row is not a record of this store: an {@link
   * IdempotencyOutcomeException}, which the executor never treats as a store outage, so not even
   * fail-open runs the method over what may be someone's record.
   */
  private IdempotencyOutcomeException notARecord(RecordKey key, String what) {
    return new IdempotencyOutcomeException(
        "the row of this record in "
            + table
            + " is "
            + what
            + ", which this store never writes, so the call did not run: is another program writing"
            + " to the table? Look at the row, then delete it (JdbcIdempotencyStore.delete) once"
            + " running the call again is safe",
        key.scope(),
        key.redactedKey(),
        null);
  }

  /** {@code stored} as a record, or the failure naming why it is none. */
  private IdempotencyRecord live(RecordKey key, Stored stored) {
    if (stored.unreadable() != null) {
      throw notARecord(key, stored.unreadable());
    }
    return stored.record(key);
  }

  private Stored readStored(Connection c, int statementTimeout, RecordKey key) throws SQLException {
    DialectStatements sql = statements(c);
    try (PreparedStatement ps =
            prepare(c, sql, sql.read(), Values.of(key, null), statementTimeout, false);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      String status = rs.getString(1);
      String owner = rs.getString(2);
      byte[] outcome = rs.getBytes(4);
      boolean inProgress = sql.isInProgress(status);
      String unreadable = null;
      if (inProgress && owner == null) {
        unreadable = "a claim without an owner";
      } else if (!inProgress && !sql.isCompleted(status)) {
        unreadable = status == null ? "a row without a status" : "a row of another status";
      } else if (!inProgress && outcome == null) {
        unreadable = "a completed record without an outcome";
      }
      return new Stored(inProgress, owner, rs.getString(3), outcome, rs.getLong(5), unreadable);
    } catch (SQLException e) {
      throw layoutMayHaveChanged(e);
    }
  }

  public Optional<IdempotencyRecord> read(RecordKey key) {
    return connections.run(
        "read",
        key,
        (c, t) -> {
          registerScope(c, t, statements(c), key.scope(), false);
          Stored stored = readStored(c, t, key);
          return stored == null || stored.microsLeft() <= 0
              ? Optional.empty()
              : Optional.of(live(key, stored));
        });
  }

  public boolean release(RecordKey key, String owner) {
    return connections.run(
        "release",
        key,
        (c, t) -> update(c, t, DialectStatements::release, Values.of(key, owner)) == 1);
  }

  public boolean renew(RecordKey key, String owner, long leaseMicros) {
    Values renew = new Values(key, owner, null, leaseMicros, null, null, 0);
    return connections.run(
        "renew", key, (c, t) -> update(c, t, DialectStatements::renew, renew) == 1);
  }

  /**
   * The administrative delete: the live record, whatever its status and owner, in one statement on
   * the store's own connection (never in a caller's transaction); an expired one is left for the
   * purge.
   */
  public boolean delete(RecordKey key) {
    return connections.run(
        "delete",
        key,
        (c, t) -> {
          registerScope(c, t, statements(c), key.scope(), false);
          return update(c, t, DialectStatements::delete, Values.of(key, null)) > 0;
        });
  }

  /**
   * Records the outcome. With a connection provider that returns the caller's connection, the
   * update runs there, and any failure, or finding the claim no longer this caller's, is an {@link
   * OutcomeNotRecordedException} that fails the call; such owners are remembered, so that a
   * repeated completion for one is refused too. A completion that failed on the store's own
   * connection stays on the store's own connections when it is tried again. An outcome larger than
   * the database accepts is an {@link OutcomeNotRecordedException} that releases the key.
   */
  public boolean complete(RecordKey key, String owner, byte[] outcome, long ttlMicros) {
    Values values = new Values(key, owner, null, ttlMicros, outcome, null, 0);
    StoreConnections.Work<Boolean> work =
        (c, t) -> {
          long limit = packetLimit(c, outcome.length);
          try {
            return update(c, t, DialectStatements::complete, values) == 1;
          } catch (SQLException e) {
            OutcomeNotRecordedException tooLarge = tooLarge(key, outcome, limit, e);
            if (tooLarge != null) {
              throw tooLarge;
            }
            throw e;
          }
        };
    if (connectionProvider == null) {
      return connections.run("complete", key, work);
    }
    Belongs earlier = failedCompletions.get(owner);
    if (earlier == Belongs.OWN_CONNECTION) {
      return completeOnOwnConnection(key, owner, work);
    }
    if (earlier == Belongs.CALLER_TRANSACTION) {
      throw OutcomeNotRecordedException.failingTheCall(
          "the outcome of "
              + key
              + " belongs to the caller's transaction, where recording it already failed; it is"
              + " never recorded on another connection",
          null);
    }
    return completeInCallerTransaction(key, owner, work);
  }

  private boolean completeOnOwnConnection(
      RecordKey key, String owner, StoreConnections.Work<Boolean> work) {
    try {
      boolean done = connections.run("complete", key, work);
      failedCompletions.remove(owner);
      return done;
    } catch (OutcomeNotRecordedException e) {
      failedCompletions.remove(owner);
      throw e;
    } catch (RuntimeException e) {
      failedCompletions.put(owner, Belongs.OWN_CONNECTION);
      throw e;
    }
  }

  private boolean completeInCallerTransaction(
      RecordKey key, String owner, StoreConnections.Work<Boolean> work) {
    Connection c;
    try {
      c = connectionProvider.connection();
    } catch (SQLException | RuntimeException e) {
      failedCompletions.put(owner, Belongs.CALLER_TRANSACTION);
      throw notInCallerTransaction(key, "getting the caller's connection failed", e);
    }
    if (c == null) {
      return completeOnOwnConnection(key, owner, work);
    }
    Exception failure = null;
    boolean done = false;
    try {
      done = work.apply(c, connections.queryTimeoutSeconds());
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
      failedCompletions.put(owner, Belongs.CALLER_TRANSACTION);
      throw notInCallerTransaction(
          key,
          failure != null
              ? "the update failed"
              : "the claim is no longer this call's (its lease ended and another caller took the"
                  + " key over, or the transaction's snapshot is older than the claim)",
          failure);
    }
    return true;
  }

  private OutcomeNotRecordedException notInCallerTransaction(
      RecordKey key, String why, Exception failure) {
    Throwable cause;
    String detail;
    if (failure instanceof SQLException s) {
      cause = connections.failure("complete (in the caller's transaction)", key, s);
      detail =
          " ("
              + (s.getSQLState() == null ? "" : "[" + s.getSQLState() + "] ")
              + RedactedSqlErrors.message(s.getMessage(), key)
              + ")";
    } else if (failure instanceof OutcomeNotRecordedException n) {
      cause = n;
      detail = " (" + n.getMessage() + ")";
    } else {
      cause = failure == null ? null : RedactedSqlErrors.copyOfAny(failure, key);
      detail = cause == null ? "" : " (" + cause.getMessage() + ")";
    }
    return OutcomeNotRecordedException.failingTheCall(
        "the outcome of "
            + key
            + " was not recorded in the caller's"
            + " transaction: "
            + why
            + detail
            + "; roll the transaction back: the outcome is never recorded on another"
            + " connection, and the claim frees itself when its lease ends",
        cause);
  }

  /**
   * MySQL/MariaDB only, for outcomes of 64 KiB or more: the server's {@code max_allowed_packet},
   * read on {@code c} when unknown and again whenever the outcome is at least half the last value
   * read (it may have been raised); 0 when not known.
   */
  private long packetLimit(Connection c, int outcomeLength) throws SQLException {
    if (dialect != JdbcDialect.MYSQL || outcomeLength < 64 * 1024) {
      return 0;
    }
    long known = maxAllowedPacket;
    if (known > 0 && outcomeLength < known / 2) {
      return known;
    }
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@max_allowed_packet")) {
      known = rs.next() ? rs.getLong(1) : 0;
    }
    maxAllowedPacket = known;
    return known;
  }

  /**
   * The failure of a completion whose outcome is larger than the database accepts, or {@code null}
   * when {@code e} is something else: a value too long for its column (SQLState 22001) or a limit
   * (54000), a packet error that names {@code max_allowed_packet}, or, on MySQL/MariaDB, a
   * connection the server dropped while receiving an outcome whose statement is at least {@code
   * max_allowed_packet}.
   */
  private OutcomeNotRecordedException tooLarge(
      RecordKey key, byte[] outcome, long limit, SQLException e) {
    boolean columnTooSmall = false;
    boolean tooLarge = false;
    for (Throwable t = e; t != null && !tooLarge && !columnTooSmall; t = t.getCause()) {
      if (t instanceof SQLException s) {
        columnTooSmall = "22001".equals(s.getSQLState()) || s.getErrorCode() == 1406;
        tooLarge =
            "54000".equals(s.getSQLState()) || s.getErrorCode() == 1153 || s.getErrorCode() == 1301;
      }
      String m = t.getMessage();
      tooLarge |= m != null && m.toLowerCase(Locale.ROOT).contains("max_allowed_packet");
      if (t.getCause() == t) {
        break;
      }
    }
    if (!tooLarge
        && !columnTooSmall
        && limit > 0
        && e.getSQLState() != null
        && e.getSQLState().startsWith("08")) {
      tooLarge = statementSize(key, outcome) >= limit;
    }
    if (!tooLarge && !columnTooSmall) {
      return null;
    }
    String size = outcome.length + " bytes";
    String fix;
    if (columnTooSmall) {
      fix =
          "the outcome column of table "
              + table
              + " is too small for it: give it the type in "
              + dialect.schemaResource();
    } else if (dialect == JdbcDialect.MYSQL) {
      fix =
          "that is more than the server's max_allowed_packet"
              + (limit > 0 ? " (" + limit + " bytes)" : "")
              + " lets through: raise max_allowed_packet on the server (and the driver's"
              + " maxAllowedPacket, if set) above "
              + statementSize(key, outcome)
              + " bytes, or return a smaller result";
    } else {
      fix = "that is more than the database takes in one value: return a smaller result";
    }
    return OutcomeNotRecordedException.releasingTheKey(
        "the outcome of "
            + key
            + " is "
            + size
            + ", and "
            + fix
            + " ("
            + RedactedSqlErrors.message(e.getMessage(), key)
            + ")",
        RedactedSqlErrors.copyOf(e, key));
  }

  /**
   * The size of the completion statement as MySQL/MariaDB drivers send it as text: the outcome with
   * the bytes they escape counted twice, the key parts likewise, and the rest of the statement.
   */
  private int statementSize(RecordKey key, byte[] outcome) {
    DialectStatements known = sql;
    long size =
        (known == null ? 0 : known.complete().text().length())
            + 512L
            + 2L * (key.scope().length() + key.key().length()) * 4;
    for (byte b : outcome) {
      size += b == 0 || b == '\'' || b == '"' || b == '\\' ? 2 : 1;
    }
    return (int) Math.min(Integer.MAX_VALUE, size);
  }

  /**
   * Deletes expired records in batches of at most {@code batchSize} rows, each in its own short
   * transaction, and returns how many rows were deleted. Through the expiry index: until a batch
   * finds fewer than {@code batchSize}. Walking the primary key: one chunk of {@code batchSize}
   * rows after another, from where the last purge left off to the end of the table and then from
   * its beginning back to there, so that the whole table is walked once, however many chunks find
   * nothing expired. At most {@value #MAX_PURGE_BATCHES} batches or chunks (logged); the next purge
   * continues.
   */
  public int purgeExpired(int batchSize) {
    return purgeExpired(batchSize, BatchPause.NONE);
  }

  /**
   * {@link #purgeExpired(int)} with {@code pause} between one batch and the next, given how long
   * the batch took; an interrupted pause ends the purge (the thread stays interrupted) with what
   * was deleted until then.
   */
  public int purgeExpired(int batchSize, BatchPause pause) {
    PurgeWay way = purgeWay;
    if (way != null && !way.walks()) {
      return purgeThroughIndex(batchSize, 0, 0, pause);
    }
    synchronized (walk) {
      PrimaryKey start = walkCursor;
      boolean wrapped = start == null;
      int total = 0;
      for (int batch = 0; batch < MAX_PURGE_BATCHES; batch++) {
        long began = System.nanoTime();
        PurgeStep step = purgeStep(batchSize, wrapped ? start : null);
        total += step.deleted();
        if (!step.walked()) {
          return step.deleted() < batchSize || !paused(pause, began, total)
              ? total
              : purgeThroughIndex(batchSize, batch + 1, total, pause);
        }
        if (step.reachedEnd()) {
          if (wrapped) {
            return total;
          }
          wrapped = true;
        }
        if (!paused(pause, began, total)) {
          return total;
        }
      }
      return stoppedAt(total);
    }
  }

  /**
   * A pause between two batches of a purge, for a purge that must leave the database to the live
   * calls most of the time.
   */
  @FunctionalInterface
  public interface BatchPause {
    /** No pause: batches back to back. */
    BatchPause NONE = (batchNanos, deleted) -> {};

    /**
     * Pauses after a batch that took {@code batchNanos}, when the purge has deleted {@code deleted}
     * rows so far.
     */
    void after(long batchNanos, int deleted) throws InterruptedException;
  }

  /**
   * Pauses after the batch that began at {@code began}, with {@code deleted} rows deleted so far;
   * false when the pause was interrupted (the thread is interrupted again).
   */
  private static boolean paused(BatchPause pause, long began, int deleted) {
    try {
      pause.after(System.nanoTime() - began, deleted);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * The purge through the expiry index, after {@code batches} batches that deleted {@code total}.
   */
  private int purgeThroughIndex(int batchSize, int batches, int total, BatchPause pause) {
    for (int batch = batches; batch < MAX_PURGE_BATCHES; batch++) {
      long began = System.nanoTime();
      int deleted = purgeBatch(batchSize);
      total += deleted;
      if (deleted < batchSize || !paused(pause, began, total)) {
        return total;
      }
    }
    return stoppedAt(total);
  }

  private int stoppedAt(int total) {
    LOG.warn(
        "purge of {} stopped after {} batches ({} rows); the next purge continues",
        table,
        MAX_PURGE_BATCHES,
        total);
    return total;
  }

  /**
   * One batch in one statement and short transaction, and how many rows it deleted: through the
   * expiry index, at most {@code batchSize} expired rows; walking the primary key, the expired rows
   * of the next {@code batchSize} rows after the last ones walked, which may be none while expired
   * rows remain further on (the walk starts again from the beginning after the end).
   */
  public int purgeBatch(int batchSize) {
    PurgeWay way = purgeWay;
    if (way != null && !way.walks()) {
      return purgeStep(batchSize, null).deleted();
    }
    synchronized (walk) {
      return purgeStep(batchSize, null).deleted();
    }
  }

  /**
   * One batch of the purge on its own connection. Walking, the chunk after the cursor, up to the
   * row {@code upTo} (when given: the walk then ends there) or to the end of the table, whose end
   * puts the cursor back at the beginning. A walking caller holds {@link #walk} before it takes the
   * connection (the lock is taken again inside only where the table was found to walk meanwhile).
   */
  private PurgeStep purgeStep(int batchSize, PrimaryKey upTo) {
    return connections.runWithQueryTimeout(
        "purge",
        null,
        (c, t) -> {
          DialectStatements sql = statements(c);
          PurgeWay way = purgeWay;
          logPurgeWay(way, batchSize);
          if (!way.walks()) {
            Values purge = new Values(null, null, null, 0, null, null, batchSize);
            return new PurgeStep(update(c, t, sql, sql.purgeBatch(), purge), false, false);
          }
          synchronized (walk) {
            PrimaryKey after = walkCursor;
            PrimaryKey bound = null;
            Values find = new Values(null, null, null, 0, null, null, batchSize, after, upTo);
            try (PreparedStatement ps =
                    prepare(c, sql, sql.walkBound(after != null, upTo != null), find, t, false);
                ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                bound = new PrimaryKey(rs.getObject(1), rs.getObject(2));
              }
            } catch (SQLException e) {
              throw layoutMayHaveChanged(e);
            }
            PrimaryKey end = bound != null ? bound : upTo;
            Values delete = new Values(null, null, null, 0, null, null, batchSize, after, end);
            int deleted = update(c, t, sql, sql.walkDelete(after != null, end != null), delete);
            walkCursor = end;
            return new PurgeStep(deleted, true, bound == null);
          }
        });
  }

  /** Logs, at the first purge after the table's layout was found, how the purge finds its rows. */
  private void logPurgeWay(PurgeWay way, int batchSize) {
    if (purgeWayLogged) {
      return;
    }
    purgeWayLogged = true;
    if (way.walks()) {
      LOG.info(
          "table {} {}: the purge walks the primary key in batches of {} rows, deleting the"
              + " expired ones of each",
          table,
          way.why(),
          batchSize);
    } else {
      LOG.info(
          "table {} {}: the purge deletes at most {} expired rows a statement, found through it",
          table,
          way.why(),
          batchSize);
    }
  }

  /**
   * How the purge of the table finds expired rows, from its indexes as {@link
   * DatabaseMetaData#getIndexInfo} reports them: through an index whose first column is {@code
   * expires_at} (or an expression of it, as PostgreSQL's shipped expiry index), where there is one;
   * else by walking the primary key. Where the database reports no index of the table at all, not
   * even its primary key's, or fails to report them, the indexes could not be read, and the purge
   * is the one of the shipped DDL, through the index.
   */
  private PurgeWay purgeWay(Connection c) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    int dot = table.indexOf('.');
    String schema = dot < 0 ? null : identifier(md, table.substring(0, dot));
    String name = identifier(md, table.substring(dot + 1));
    String catalog = null;
    if (dialect == JdbcDialect.MYSQL) {
      catalog = schema != null ? schema : c.getCatalog();
      schema = null;
    } else if (schema == null) {
      schema = c.getSchema();
    }
    boolean anyIndex = false;
    List<String> expiryIndexes = new ArrayList<>();
    try (ResultSet rs = md.getIndexInfo(catalog, schema, name, false, true)) {
      while (rs.next()) {
        if (rs.getShort("TYPE") == DatabaseMetaData.tableIndexStatistic) {
          continue;
        }
        anyIndex = true;
        String column = rs.getString("COLUMN_NAME");
        if (rs.getInt("ORDINAL_POSITION") == 1
            && column != null
            && NAMES_EXPIRES_AT.matcher(column).find()) {
          expiryIndexes.add(rs.getString("INDEX_NAME"));
        }
      }
    } catch (SQLException e) {
      return new PurgeWay(
          false,
          "has indexes the database's metadata would not report ("
              + (e.getSQLState() == null ? "" : "[" + e.getSQLState() + "] ")
              + JdbcUrls.withoutPassword(String.valueOf(e.getMessage()))
              + "), so it is taken to have the expiry index of the shipped DDL");
    }
    if (!expiryIndexes.isEmpty()) {
      return new PurgeWay(false, "has an index on expires_at (" + expiryIndexes.get(0) + ")");
    }
    if (!anyIndex) {
      return new PurgeWay(
          false,
          "has no index the database's metadata reports (its indexes could not be read), so it"
              + " is taken to have the expiry index of the shipped DDL");
    }
    return new PurgeWay(true, "has no index on expires_at");
  }

  /** An unquoted SQL name as the database stores it. */
  private static String identifier(DatabaseMetaData md, String name) throws SQLException {
    if (md.storesUpperCaseIdentifiers()) {
      return name.toUpperCase(Locale.ROOT);
    }
    return md.storesLowerCaseIdentifiers() ? name.toLowerCase(Locale.ROOT) : name;
  }

  /**
   * The statements for the table's layout, found once from its columns on {@code c}: the compact
   * layout of the shipped DDL, or, where the table has a {@code scope} column, the layout of
   * earlier versions, which keeps working as it is (logged once, with the migration that shrinks
   * it). In the compact layout the type of {@code scope_id} gives the width of the scope ids
   * ({@link #scopeIdWidth}), so that a table's records are always found under the ids they were
   * written with. With them, {@link #purgeWay(Connection) how the purge finds expired rows}.
   */
  private DialectStatements statements(Connection c) throws SQLException {
    DialectStatements known = sql;
    if (known != null) {
      return known;
    }
    synchronized (this) {
      if (sql != null) {
        return sql;
      }
      DialectStatements.Layout layout = DialectStatements.Layout.COMPACT;
      ScopeIds.Width width = ScopeIds.Width.BITS_64;
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
        ResultSetMetaData md = rs.getMetaData();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          if ("scope".equalsIgnoreCase(md.getColumnLabel(i))) {
            layout = DialectStatements.Layout.LEGACY;
          } else if ("scope_id".equalsIgnoreCase(md.getColumnLabel(i))) {
            width = scopeIdWidth(md, i);
          }
        }
      }
      if (layout == DialectStatements.Layout.LEGACY) {
        LOG.warn(
            "table {} has the record layout of earlier versions (the scope text in every row); the"
                + " store keeps using it as it is. To shrink its rows, migrate it as"
                + " docs/stores/jdbc.md shows (\"Upgrading from the earlier table layout\")",
            table);
      }
      known = DialectStatements.of(dialect, table, layout, width);
      PurgeWay way = purgeWay(c);
      PurgeWay before = purgeWay;
      if (before == null || before.walks() != way.walks()) {
        walkCursor = null;
        purgeWayLogged = false;
      }
      purgeWay = way;
      sql = known;
      return known;
    }
  }

  /**
   * The width of the ids a {@code scope_id} column holds: 32 bits for a signed 32-bit {@code
   * INTEGER} (the shipped DDL where it makes rows smaller), 64 bits for anything else, as a {@code
   * BIGINT} of the DDL of earlier versions, which keeps its ids.
   */
  public static ScopeIds.Width scopeIdWidth(ResultSetMetaData md, int column) throws SQLException {
    boolean int32 =
        md.getColumnType(column) == Types.INTEGER
            && md.isSigned(column)
            && md.getPrecision(column) >= 10;
    return int32 ? ScopeIds.Width.BITS_32 : ScopeIds.Width.BITS_64;
  }

  /**
   * Compact layout: writes the text of {@code scope} to the scope table once per scope and store
   * (when {@code write}; otherwise only reads it, for the reads and deletes that never write it),
   * and fails, naming both scopes, when another scope's text is stored under its id (or this store
   * has seen another scope's text there): the records of the two would share their keys.
   */
  private void registerScope(
      Connection c, int statementTimeout, DialectStatements sql, String scope, boolean write)
      throws SQLException {
    if (sql.layout() != DialectStatements.Layout.COMPACT) {
      return;
    }
    long id = sql.scopeIdWidth().of(scope);
    String known = registeredScopes.get(id);
    if (known != null) {
      if (known.equals(scope)) {
        return;
      }
      throw scopeIdTaken(sql, scope, id, known);
    }
    Values values = Values.of(RecordKey.of(scope, "-"), null);
    if (write) {
      try {
        update(c, statementTimeout, sql, sql.insertScope(), values);
      } catch (SQLException e) {
        if (!sql.isDuplicateKey(e)) {
          throw e;
        }
      }
    }
    String stored;
    try (PreparedStatement ps = prepare(c, sql, sql.readScope(), values, statementTimeout, false);
        ResultSet rs = ps.executeQuery()) {
      stored = rs.next() ? readScopeText(rs) : null;
    }
    if (stored != null && !stored.equals(scope)) {
      throw scopeIdTaken(sql, scope, id, stored);
    }
    if (stored == null && !write) {
      return; // no scope has written records under the id yet
    }
    String raced = registeredScopes.putIfAbsent(id, scope);
    if (raced != null && !raced.equals(scope)) {
      throw scopeIdTaken(sql, scope, id, raced);
    }
  }

  /** The refusal of {@code scope}, whose id {@code other} has. */
  private JdbcStoreException scopeIdTaken(
      DialectStatements sql, String scope, long id, String other) {
    int bits = sql.scopeIdWidth() == ScopeIds.Width.BITS_32 ? 32 : 64;
    return new JdbcStoreException(
        "scope \""
            + scope
            + "\" cannot be used with table "
            + table
            + ": its scope id "
            + id
            + " (the first "
            + bits
            + " bits of its SHA-256) is already registered in "
            + DialectStatements.scopeTable(table)
            + " for the scope \""
            + other
            + "\", and the records of two scopes never share an id. Rename one of the two scopes"
            + " (the scope attribute of @Idempotent or of the policy); nothing was written for"
            + " this call",
        null);
  }

  private String readScopeText(ResultSet rs) throws SQLException {
    if (dialect == JdbcDialect.MYSQL) {
      byte[] bytes = rs.getBytes(1);
      return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
    return rs.getString(1);
  }

  /** Runs the statement {@code which} picks from the table's statements. */
  private int update(
      Connection c, int statementTimeout, Function<DialectStatements, Sql> which, Values values)
      throws SQLException {
    DialectStatements sql = statements(c);
    return update(c, statementTimeout, sql, which.apply(sql), values);
  }

  private int update(
      Connection c, int statementTimeout, DialectStatements sql, Sql statement, Values values)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, statement, values, statementTimeout, false)) {
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw layoutMayHaveChanged(e);
    }
  }

  /**
   * Forgets the table's layout, and the scopes written, when {@code e} says a column or the table
   * is not there (as after the table was migrated to the compact layout while the store ran), so
   * that the next operation finds them again; returns {@code e}.
   */
  private SQLException layoutMayHaveChanged(SQLException e) {
    if ((e.getSQLState() != null && UNDEFINED_COLUMN_STATES.contains(e.getSQLState()))
        || StoreConnections.isMissingTable(e)) {
      if (sql != null) {
        LOG.info(
            "table {} or one of its columns is missing; its layout is looked up again on the next"
                + " call",
            table);
      }
      sql = null;
      walkCursor = null;
      registeredScopes.clear();
    }
    return e;
  }

  /**
   * Prepares {@code statement}, one of {@code sql}, with its values bound as {@code sql} binds them
   * and {@code statementTimeout} seconds set (0: none), asking for the generated key when {@code
   * returnKey}.
   */
  private PreparedStatement prepare(
      Connection c,
      DialectStatements sql,
      Sql statement,
      Values values,
      int statementTimeout,
      boolean returnKey)
      throws SQLException {
    PreparedStatement ps =
        returnKey
            ? c.prepareStatement(statement.text(), Statement.RETURN_GENERATED_KEYS)
            : c.prepareStatement(statement.text());
    try {
      if (statementTimeout > 0) {
        ps.setQueryTimeout(statementTimeout);
      }
      bind(ps, sql, statement, values);
      return ps;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }

  private void bind(PreparedStatement ps, DialectStatements sql, Sql statement, Values v)
      throws SQLException {
    int i = 1;
    for (Param p : statement.params()) {
      switch (p) {
        case SCOPE -> sql.bindKeyPart(ps, i, v.key().scope());
        case SCOPE_ID -> sql.bindScopeId(ps, i, v.key().scope());
        case KEY -> sql.bindKeyPart(ps, i, v.key().key());
        case OWNER -> ps.setString(i, v.owner());
        case FINGERPRINT -> ps.setString(i, v.fingerprint());
        case LEASE, TTL -> ps.setLong(i, v.micros());
        case OUTCOME -> ps.setBytes(i, v.outcome());
        case PREVIOUS_OWNER -> ps.setString(i, v.previousOwner());
        case LIMIT -> ps.setInt(i, v.limit());
        case AFTER_SCOPE -> ps.setObject(i, v.after().first());
        case AFTER_KEY -> ps.setObject(i, v.after().key());
        case UP_TO_SCOPE -> ps.setObject(i, v.upTo().first());
        case UP_TO_KEY -> ps.setObject(i, v.upTo().key());
        case OFFSET -> ps.setInt(i, v.limit() - 1);
        default -> throw new IllegalStateException("unbound parameter " + p);
      }
      i++;
    }
  }
}
