package dev.idempotent.jdbc;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.jdbc.internal.CallerTransactions;
import dev.idempotent.jdbc.internal.ClaimOrder;
import dev.idempotent.jdbc.internal.JdbcUrls;
import dev.idempotent.jdbc.internal.OversizedOutcomes;
import dev.idempotent.jdbc.internal.Purge;
import dev.idempotent.jdbc.internal.PurgeSchedule;
import dev.idempotent.jdbc.internal.SchemaCreation;
import dev.idempotent.jdbc.internal.ScopeRegistry;
import dev.idempotent.jdbc.internal.Sql;
import dev.idempotent.jdbc.internal.SqlAccessor;
import dev.idempotent.jdbc.internal.SqlStatements;
import dev.idempotent.jdbc.internal.StoreConnections;
import dev.idempotent.jdbc.internal.StoredRow;
import dev.idempotent.jdbc.internal.TableFormat;
import dev.idempotent.jdbc.internal.Values;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link IdempotencyStore} in a table of PostgreSQL, MariaDB, MySQL or H2, over plain JDBC.
 *
 * <pre>{@code
 * JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
 *     .table("idempotency_record")         // default
 *     .queryTimeout(Duration.ofSeconds(5)) // default
 *     .build();
 * }</pre>
 *
 * <p>The tables are created by the DDL shipped for each dialect ({@link
 * JdbcDialect#schemaResource()}, for example {@code dev/idempotent/jdbc/schema-postgresql.sql}), or
 * by the store with {@link Builder#createTable createTable(true)} (safe when many instances start
 * together on an empty database): the record table; next to it {@code <table>_scope}, each scope's
 * text once under the 64-bit id that stands for it in every record ({@link RecordKey#scopeId()});
 * and {@code <table>_meta}, the tables' format version, which the store checks before its first
 * statement on them (version 1; tables of another version, or without one, are refused with an
 * {@link IdempotencyConfigurationException}).
 *
 * <h2>The algorithm</h2>
 *
 * This class runs it; a dialect ({@link JdbcDialect}) is only the SQL text of each statement and
 * how its errors read. Every statement finds a record by its primary key, {@code (scope_id,
 * idem_key)}, and computes and compares every lease and expiry on the database's clock.
 *
 * <ul>
 *   <li><b>Claim</b>: the scope registered first in {@code <table>_scope} (once per scope, then at
 *       most hourly, see {@link #purgeScopes}). Then the fresh-key insert, one statement that
 *       writes nothing when the key has a row: won, the key is acquired. Otherwise the key's row,
 *       returned by that same statement where the dialect can (MariaDB), else read: the caller's
 *       own claim is acquired (an insert that could not say what it did); a live row is the answer,
 *       or, when it is none of this store's records, an {@link IdempotencyOutcomeException}; an
 *       expired row is taken over by one {@code UPDATE} that matches only that row (its owner as
 *       read) while it is still expired, a takeover when it was in progress. In a scope whose
 *       recent claims mostly found the key's row (repeats), the read comes first and the insert
 *       only when it finds none, so a repeat is one {@code SELECT}, as a fresh key is one insert in
 *       a scope of mostly new keys. When the row was released, purged or taken over between two
 *       statements, start again, at most {@value #MAX_CLAIM_ATTEMPTS} times.
 *   <li><b>Complete, release, renew</b>: one statement that matches only the caller's own live
 *       claim. A completion runs in the caller's transaction when the {@link ConnectionProvider}
 *       gives one, and then fails the call rather than being written anywhere else, then or later.
 *       An outcome larger than the database accepts releases the key.
 *   <li><b>Read</b>, <b>delete</b> (administrative): one statement, after a check (once per scope)
 *       that the scope's id is not another scope's.
 *   <li><b>Purge</b>: {@link #purgeExpired}, {@link #purgeBatch}, {@link #purgeScopes}.
 * </ul>
 *
 * Each call takes its own short autocommit connection from the {@link DataSource}, bounded by
 * {@link Builder#queryTimeout}; errors carry no bound value (see {@link JdbcStoreException}).
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {
  /** The longest scope or key this store indexes, in characters; longer ones arrive digested. */
  public static final int MAX_KEY_LENGTH = 255;

  /** The default table name. */
  public static final String DEFAULT_TABLE = "idempotency_record";

  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
  private static final Pattern TABLE_NAME =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");
  private static final int MAX_CLAIM_ATTEMPTS = 5;

  private final String table;
  private final JdbcDialect dialect;
  private final SqlStatements sql;
  private final SqlAccessor db;
  private final StoreConnections connections;
  private final TableFormat format;
  private final ScopeRegistry scopes;
  private final Purge purge;
  private final CallerTransactions callerTransactions;
  private final OversizedOutcomes oversized;
  private final AutoCloseable ownedResource;
  private final PurgeSchedule purgeSchedule;
  private final ClaimOrder.Learned claimOrder;

  /** Whether the tables' format has been checked (and found this store's) since they were found. */
  private volatile boolean formatChecked;

  private volatile boolean warnedNoCode;

  private JdbcIdempotencyStore(Builder b, JdbcDialect dialect, String location, boolean checked) {
    this.table = b.table;
    this.dialect = dialect;
    this.sql = SqlStatements.of(dialect, b.table);
    this.db = new SqlAccessor(sql);
    this.connections =
        new StoreConnections(b.dataSource, b.table, dialect, b.queryTimeout, location);
    this.format = new TableFormat(db, dialect);
    this.formatChecked = checked;
    this.scopes = new ScopeRegistry(db);
    this.purge = new Purge(db, connections, this::checkFormat);
    this.oversized = new OversizedOutcomes(sql, dialect);
    this.callerTransactions =
        b.connectionProvider == null
            ? null
            : new CallerTransactions(b.connectionProvider, connections);
    this.ownedResource = b.ownedResource;
    this.claimOrder = b.claimOrder.learned();
    this.purgeSchedule =
        b.purgeInterval == null
            ? null
            : new PurgeSchedule(purge, b.table, b.purgeInterval, b.purgeBatchSize);
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
    Values claim = Values.claim(key, ownerToken, fingerprint, micros(lease, "lease"));
    return run(
        "claim",
        key,
        (c, t) -> {
          scopes.beforeWrite(c, t, key);
          boolean readFirst = claimOrder.readFirst(key.scopeId());
          for (int attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt++) {
            StoredRow row = null;
            if (readFirst) {
              readFirst = false; // a row missing now is inserted, and so is one on a retry
              row = readRow(c, t, key);
              if (row == null && !c.getAutoCommit()) {
                c.commit(); // ends the read's snapshot: the insert's conflict is then visible
              }
            }
            if (row == null) {
              Inserted inserted = insert(c, t, claim);
              if (inserted.won()) {
                claimOrder.claimed(key.scopeId(), false);
                return ClaimResult.acquired();
              }
              row = inserted.row() != null ? inserted.row() : readRow(c, t, key);
              if (row == null) {
                continue; // released or purged since the insert, or not visible to it yet
              }
              if (row.isClaimOf(ownerToken)) {
                claimOrder.claimed(key.scopeId(), false);
                return ClaimResult.acquired(); // the insert's own row
              }
            }
            claimOrder.claimed(key.scopeId(), true);
            if (row.live()) {
              return ClaimResult.existing(record(key, row));
            }
            Sql takeOver = row.owner() == null ? sql.takeOverOwnerless() : sql.takeOver();
            if (db.update(c, t, takeOver, claim.replacing(row.owner())) == 1) {
              return row.inProgress() ? ClaimResult.tookOver() : ClaimResult.acquired();
            }
            // another caller took the expired row over, or it was released, since it was read
          }
          throw new SQLException(
              "the record changed under every one of " + MAX_CLAIM_ATTEMPTS + " claim attempts");
        });
  }

  /** What the fresh-key insert did: won, or the key's row where the insert returned it. */
  private record Inserted(boolean won, StoredRow row) {
    static final Inserted WON = new Inserted(true, null);
    static final Inserted TAKEN = new Inserted(false, null);
  }

  /**
   * Runs the fresh-key insert and reads its answer the way {@link SqlStatements#claimAnswer} says.
   */
  private Inserted insert(Connection c, int timeout, Values claim) throws SQLException {
    switch (sql.claimAnswer()) {
      case ROW:
        return new Inserted(false, db.queryRow(c, timeout, sql.claim(), claim, StoredRow::read));
      case CODE:
        SqlAccessor.Counted counted = db.updateWithCode(c, timeout, sql.claim(), claim);
        SqlStatements.Inserted answer = sql.inserted(counted.rows(), counted.code());
        if (answer == SqlStatements.Inserted.UNKNOWN && !warnedNoCode) {
          warnedNoCode = true;
          LOG.warn(
              "a claim on {} got no LAST_INSERT_ID code back (a proxy between the driver and the"
                  + " server may be dropping it), so such claims read their row back to see whose"
                  + " it is (one more statement)",
              table);
        }
        return answer == SqlStatements.Inserted.WON ? Inserted.WON : Inserted.TAKEN;
      default:
        try {
          db.update(c, timeout, sql.claim(), claim);
          return Inserted.WON;
        } catch (SQLException e) {
          if (sql.isDuplicateKey(e)) {
            return Inserted.TAKEN;
          }
          throw e;
        }
    }
  }

  private StoredRow readRow(Connection c, int timeout, RecordKey key) throws SQLException {
    return db.queryRow(c, timeout, sql.read(), Values.of(key, null), StoredRow::read);
  }

  /**
   * {@code row} as the record of {@code key}; a row this store never writes is an {@link
   * IdempotencyOutcomeException}, which the executor never takes for a store outage, so not even
   * fail-open runs the method over what may be someone's record.
   */
  private IdempotencyRecord record(RecordKey key, StoredRow row) {
    String unreadable = row.unreadable();
    if (unreadable == null) {
      return row.record(key);
    }
    throw new IdempotencyOutcomeException(
        "the row of this record in "
            + table
            + " is "
            + unreadable
            + ", which this store never writes, so the call did not run: is another program writing"
            + " to the table? Look at the row, then delete it (JdbcIdempotencyStore.delete) once"
            + " running the call again is safe",
        key.scope(),
        key.redactedKey(),
        null);
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    Objects.requireNonNull(key, "key");
    return run(
        "read",
        key,
        (c, t) -> {
          scopes.beforeRead(c, t, key);
          StoredRow row = readRow(c, t, key);
          return row == null || !row.live() ? Optional.empty() : Optional.of(record(key, row));
        });
  }

  /**
   * Records the outcome. With a {@link Builder#connectionProvider connection provider} that returns
   * the caller's connection, the update runs there, and any failure, or finding the claim no longer
   * this caller's, is an {@link OutcomeNotRecordedException} that fails the call: the completion
   * belongs to that transaction and is never written on another connection, then or later (the
   * store remembers such owners, so a repeated {@code complete} for one is refused too). A
   * completion that failed on the store's own connection stays on the store's own connections when
   * it is tried again. An outcome larger than the database accepts is an {@link
   * OutcomeNotRecordedException} that releases the key.
   */
  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    Objects.requireNonNull(outcome, "outcome");
    Values completion = Values.completion(key, ownerToken, outcome, micros(ttl, "ttl"));
    StoreConnections.Work<Boolean> work =
        (c, t) -> {
          long limit = oversized.packetLimit(c, outcome.length);
          try {
            return db.update(c, t, sql.complete(), completion) == 1;
          } catch (SQLException e) {
            OutcomeNotRecordedException tooLarge = oversized.refusal(key, outcome, limit, e);
            if (tooLarge != null) {
              throw tooLarge;
            }
            throw e;
          }
        };
    if (callerTransactions == null) {
      return run("complete", key, work);
    }
    return callerTransactions.complete(key, ownerToken, (c, t) -> run(c, t, work));
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    return run(
        "release", key, (c, t) -> db.update(c, t, sql.release(), Values.of(key, ownerToken)) == 1);
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    Values renewal = Values.claim(key, ownerToken, null, micros(lease, "lease"));
    return run("renew", key, (c, t) -> db.update(c, t, sql.renew(), renewal) == 1);
  }

  /**
   * Renews every claim with the renew statement (each owner-checked on its row), sent as one JDBC
   * batch on one connection: one round trip on PostgreSQL, whose driver pipelines a batch. The rows
   * are renewed in key order, so two batches never wait for each other's rows in opposite orders. A
   * row count the driver does not report is asked again with a single renew.
   */
  @Override
  public boolean[] renewAll(List<HeldClaim> claims, Duration lease) {
    Objects.requireNonNull(claims, "claims");
    long leaseMicros = micros(lease, "lease");
    if (claims.isEmpty()) {
      return new boolean[0];
    }
    Integer[] order = new Integer[claims.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        Comparator.<Integer>comparingLong(i -> claims.get(i).key().scopeId())
            .thenComparing(i -> claims.get(i).key().key()));
    List<Values> renewals = new ArrayList<>(order.length);
    for (Integer i : order) {
      HeldClaim claim = claims.get(i);
      renewals.add(Values.claim(claim.key(), claim.ownerToken(), null, leaseMicros));
    }
    return run(
        "renew",
        claims.get(0).key(),
        (c, t) -> {
          int[] counts = db.updateEach(c, t, sql.renew(), renewals);
          boolean[] renewed = new boolean[order.length];
          for (int j = 0; j < order.length; j++) {
            int count = j < counts.length ? counts[j] : Statement.SUCCESS_NO_INFO;
            renewed[order[j]] =
                count == Statement.SUCCESS_NO_INFO
                    ? db.update(c, t, sql.renew(), renewals.get(j)) == 1
                    : count == 1;
          }
          return renewed;
        });
  }

  /**
   * Deletes the live row of {@code key}, whatever its owner, in one statement on its own connection
   * (never in a caller's transaction). An expired row is left for {@link #purgeExpired}.
   */
  @Override
  public boolean delete(RecordKey key) {
    Objects.requireNonNull(key, "key");
    return run(
        "delete",
        key,
        (c, t) -> {
          scopes.beforeRead(c, t, key);
          return db.update(c, t, sql.delete(), Values.of(key, null)) > 0;
        });
  }

  @Override
  public int maxKeyLength() {
    return MAX_KEY_LENGTH;
  }

  /**
   * Deletes expired records in batches of at most {@code batchSize} rows, each in its own short
   * transaction, then the rows of the scope table that no record has and that no store has
   * refreshed for a day (see {@link #purgeScopes}); returns how many records were deleted. Expired
   * records already behave as missing ones, so purging only reclaims space.
   *
   * <p>Through the expiry index, the batches go on until one finds fewer than {@code batchSize}
   * expired rows. On a table without an index on {@code expires_at}, each batch is the expired rows
   * of the next {@code batchSize} rows in primary-key order, and the purge walks the whole table
   * once: from where the last purge (or {@link #purgeBatch}) left off to the end, then from the
   * beginning back to there, however many batches delete nothing. At most 10,000 batches a call
   * (logged); the next call continues.
   *
   * @param batchSize 1 to 100,000
   */
  public int purgeExpired(int batchSize) {
    requireBatchSize(batchSize);
    return purge.purgeExpired(batchSize, Purge.BatchPause.NONE);
  }

  /**
   * Deletes at most {@code batchSize} expired records in one short transaction, and returns how
   * many; for a purge paced by the caller (one batch, then a pause), where {@link #purgeExpired}
   * runs its batches back to back. Such a caller purges the scope table with {@link #purgeScopes}
   * now and then.
   *
   * <p>Through the expiry index (the shipped DDL's) it is one statement, and a result below {@code
   * batchSize} means no more expired rows were found. On a table without an index on {@code
   * expires_at}, it deletes the expired rows of the next {@code batchSize} rows in primary-key
   * order, after those the previous batch walked, starting again from the beginning after the end
   * of the table: a result below {@code batchSize}, even 0, then says nothing of the rows further
   * on, and a pass over the whole table takes about its row count divided by {@code batchSize}
   * calls.
   *
   * @param batchSize 1 to 100,000
   */
  public int purgeBatch(int batchSize) {
    requireBatchSize(batchSize);
    return purge.purgeBatch(batchSize);
  }

  /**
   * Deletes at most {@code batchSize} rows of the scope table ({@code <table>_scope}) that no
   * record has any longer and that no store has refreshed for a day, in one short transaction, and
   * returns how many. A store refreshes the row of each scope it writes records of at most hourly,
   * before it writes them, so the row of a scope in use is never deleted. {@link #purgeExpired}
   * (and {@link Builder#purgeEvery}) runs it after the records.
   *
   * @param batchSize 1 to 100,000
   */
  public int purgeScopes(int batchSize) {
    requireBatchSize(batchSize);
    return purge.purgeScopes(batchSize);
  }

  /**
   * Stops the scheduled purge and closes what the store owns; a {@link DataSource} it was given
   * stays open.
   */
  @Override
  public void close() {
    if (purgeSchedule != null) {
      purgeSchedule.close();
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
    return "JdbcIdempotencyStore{"
        + dialect
        + ", table="
        + table
        + ", "
        + connections.location()
        + "}";
  }

  /** Runs {@code work} on a connection of the store's own, after the tables' format check. */
  private <T> T run(String operation, RecordKey key, StoreConnections.Work<T> work) {
    return connections.run(operation, key, (c, t) -> run(c, t, work));
  }

  /**
   * Runs {@code work} on {@code c}, after the tables' format check when it is still to be made;
   * forgets what it knows of the tables when a statement finds one missing (they may be created
   * again).
   */
  private <T> T run(Connection c, int timeout, StoreConnections.Work<T> work) throws SQLException {
    try {
      checkFormat(c, timeout);
      return work.apply(c, timeout);
    } catch (SQLException e) {
      if (sql.isMissingTable(e)) {
        formatChecked = false;
        scopes.forget();
        purge.forget();
      }
      throw e;
    }
  }

  /** Checks the tables' format on {@code c}, unless it was found this store's since they were. */
  private void checkFormat(Connection c, int timeout) throws SQLException {
    if (!formatChecked) {
      format.check(c, timeout);
      formatChecked = true;
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
      throw new IllegalArgumentException(
          "batchSize must be between 1 and 100000, was " + batchSize);
    }
  }

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
    private ClaimOrder claimOrder = ClaimOrder.ADAPTIVE;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
    }

    /**
     * The table, optionally schema-qualified ({@code app.idempotency_record}); default {@code
     * idempotency_record}. Letters, digits and underscores only.
     */
    public Builder table(String table) {
      if (table == null || !TABLE_NAME.matcher(table).matches()) {
        throw new IllegalArgumentException(
            "table must be a plain or schema-qualified SQL name of letters, digits and"
                + " underscores, like idempotency_record or app.idempotency_record; was "
                + table);
      }
      this.table = table;
      return this;
    }

    /**
     * The SQL dialect; by default detected from the database product name when the store is built.
     */
    public Builder dialect(JdbcDialect dialect) {
      this.dialect =
          Objects.requireNonNull(dialect, "dialect must not be null (leave it unset to detect it)");
      return this;
    }

    /**
     * Records completions on the caller's transaction (see {@link ConnectionProvider}); by default
     * each completion commits on its own connection.
     */
    public Builder connectionProvider(ConnectionProvider connectionProvider) {
      this.connectionProvider =
          Objects.requireNonNull(connectionProvider, "connectionProvider must not be null");
      return this;
    }

    /**
     * The longest a store call may take; default 5 s. On PostgreSQL and MySQL/MariaDB it is the
     * connection's network timeout, set for each call and restored after it; on H2, with drivers
     * without network timeouts, for the purge and for a completion on the caller's connection, a
     * query timeout on each statement, in whole seconds (rounded up).
     */
    public Builder queryTimeout(Duration queryTimeout) {
      if (queryTimeout == null
          || queryTimeout.isNegative()
          || queryTimeout.isZero()
          || queryTimeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "queryTimeout must be between 1 ms and 1 h, like Duration.ofSeconds(5);"
                + " was "
                + queryTimeout);
      }
      this.queryTimeout = queryTimeout;
      return this;
    }

    /**
     * When {@code true}, {@link #build()} makes sure the tables are there in this format and runs
     * the dialect's DDL ({@code CREATE TABLE IF NOT EXISTS}, and the format version where the
     * tables had none) where they are not: under the database's lock (PostgreSQL's advisory lock,
     * MySQL/MariaDB's {@code GET_LOCK}; on H2 a lock of the JVM), looking again and retrying when
     * it lost a race to another creator, so many instances may start together on an empty database;
     * with no DDL when the tables are there (see {@code SchemaCreation} and docs/stores/jdbc.md,
     * "First start"). A record table that is there without the format version, or with another one,
     * is refused, not stamped. Default {@code false}: run {@link JdbcDialect#schemaResource()} with
     * your migrations.
     */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /**
     * Purges expired records every {@code interval} on one daemon thread that {@link #close()}
     * stops, {@code batchSize} rows per statement (each time one {@link
     * JdbcIdempotencyStore#purgeExpired purgeExpired}: on a table without an index on {@code
     * expires_at}, one walk of the whole table in chunks of {@code batchSize} rows), paced so that
     * the live calls keep the database: a run spreads its batches over half the interval at the
     * rate of the run before, and after each batch pauses at least four times as long as the batch
     * took (at most 10 s); {@link JdbcIdempotencyStore#close()} ends a pause.
     */
    public Builder purgeEvery(Duration interval, int batchSize) {
      if (interval == null || interval.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException(
            "purge interval must be at least 1 s, like Duration.ofMinutes(10); was " + interval);
      }
      requireBatchSize(batchSize);
      this.purgeInterval = interval;
      this.purgeBatchSize = batchSize;
      return this;
    }

    /**
     * Makes {@link JdbcIdempotencyStore#close()} close {@code resource} too, for a connection pool
     * created only for this store.
     */
    public Builder closing(AutoCloseable resource) {
      this.ownedResource = Objects.requireNonNull(resource, "resource must not be null");
      return this;
    }

    /** Pins which statement a claim sends first (the tests of each order); adaptive otherwise. */
    Builder claimOrder(ClaimOrder claimOrder) {
      this.claimOrder = Objects.requireNonNull(claimOrder, "claimOrder must not be null");
      return this;
    }

    /**
     * Builds the store. Connects once when the dialect must be detected or the tables created, and
     * then checks the tables' format version, when they are there.
     *
     * @throws JdbcStoreException when the database cannot be reached, or the tables cannot be
     *     created (the message says why and what to do: which rights a first start needs, or the
     *     DDL script to run instead)
     * @throws IdempotencyConfigurationException when the tables are there with another format
     *     version, or without one
     * @throws IllegalStateException when the database is not one of the supported dialects
     */
    public JdbcIdempotencyStore build() {
      JdbcDialect chosen = dialect;
      String location = null;
      boolean checked = false;
      if (chosen == null || createTable) {
        try (Connection c = dataSource.getConnection()) {
          DatabaseMetaData md = c.getMetaData();
          location = StoreConnections.describe(md);
          if (chosen == null) {
            String product = md.getDatabaseProductName();
            chosen =
                JdbcDialect.forProductName(product)
                    .orElseThrow(
                        () ->
                            new IllegalStateException(
                                "the idempotency store supports PostgreSQL, MariaDB, MySQL and H2,"
                                    + " but the database is "
                                    + product
                                    + ": if it speaks one of those dialects, set it with"
                                    + " .dialect(JdbcDialect...)"));
          }
          int timeout = (int) Math.max(1, queryTimeout.toSeconds()) * 6;
          if (createTable) {
            SchemaCreation creation = new SchemaCreation(chosen, table, location, timeout);
            try {
              creation.create(c);
            } catch (SQLException e) {
              throw creation.failure(e);
            }
            checked = true;
          } else {
            new TableFormat(new SqlAccessor(SqlStatements.of(chosen, table)), chosen)
                .checkBeforeCreate(c, timeout);
          }
        } catch (SQLException e) {
          throw new JdbcStoreException(
              "cannot "
                  + (createTable
                      ? "create the idempotency table " + table + " in "
                      : "detect the SQL dialect of ")
                  + (location == null ? "the DataSource" : location)
                  + ": "
                  + JdbcUrls.withoutPassword(e.getMessage()),
              e);
        }
      }
      JdbcIdempotencyStore store = new JdbcIdempotencyStore(this, chosen, location, checked);
      LOG.debug( // the starter's start-up line names the store
          "idempotency store on {} table {} ({})",
          location == null ? "a DataSource" : location,
          table,
          chosen);
      return store;
    }
  }
}
