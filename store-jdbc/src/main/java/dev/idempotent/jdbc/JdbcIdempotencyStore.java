package dev.idempotent.jdbc;

import dev.idempotent.jdbc.internal.IdempotencyTable;
import dev.idempotent.jdbc.internal.JdbcUrls;
import dev.idempotent.jdbc.internal.PurgeSchedule;
import dev.idempotent.jdbc.internal.SchemaScript;
import dev.idempotent.jdbc.internal.StoreConnections;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
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
 * <p>The table is created by the DDL shipped for each dialect ({@link
 * JdbcDialect#schemaResource()}, for example {@code dev/idempotent/jdbc/schema-postgresql.sql}), or
 * by the store itself with {@link Builder#createTable createTable(true)}: the record table, whose
 * rows carry a 32-bit id of their scope (64-bit in a table whose {@code scope_id} is a {@code
 * BIGINT}, as in H2's DDL and the tables of earlier versions: the store reads the column's type),
 * and next to it {@code <table>_scope}, which holds each scope's text once. A table of the layout
 * of earlier versions (the scope text in every row) keeps working as it is; the migrations that
 * shrink it are {@code dev/idempotent/jdbc/migrate-postgresql.sql} and {@code migrate-mysql.sql}. A
 * claim of a fresh key is one insert that writes nothing when the key is taken (PostgreSQL {@code
 * INSERT ... ON CONFLICT DO NOTHING}, MySQL {@code INSERT ... ON DUPLICATE KEY UPDATE} that changes
 * nothing, H2 a plain insert); only when it did not win is the record read, and an expired one
 * taken over by one conditional update. Completion, release and renewal are single statements that
 * match only the caller's own live claim. Every lease and expiry is computed and compared on the
 * database's clock. Each call takes its own short autocommit connection from the {@link
 * DataSource}, bounded by {@link Builder#queryTimeout}; with {@link Builder#connectionProvider} the
 * completion joins the caller's transaction instead, and is never written anywhere else (see {@link
 * #complete}). Errors carry no bound value (see {@link JdbcStoreException}).
 *
 * <p>Expired rows behave as missing ones and are replaced in place; {@link #purgeExpired(int)} (or
 * {@link Builder#purgeEvery}) deletes them in bounded batches. It finds them through the table's
 * expiry index (the shipped DDL's); on a table without an index on {@code expires_at} (found on the
 * first call, with the table's layout, and logged at the first purge) it walks the primary key in
 * chunks instead, deleting the expired rows of each.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {
  /** The longest scope or key this store indexes, in characters; longer ones arrive digested. */
  public static final int MAX_KEY_LENGTH = 255;

  /** The default table name. */
  public static final String DEFAULT_TABLE = "idempotency_record";

  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
  private static final Pattern TABLE_NAME =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

  private final String table;
  private final JdbcDialect dialect;
  private final StoreConnections connections;
  private final IdempotencyTable records;
  private final AutoCloseable ownedResource;
  private final PurgeSchedule purge;

  private JdbcIdempotencyStore(Builder b, JdbcDialect dialect, String location) {
    this.table = b.table;
    this.dialect = dialect;
    this.connections =
        new StoreConnections(b.dataSource, b.table, dialect, b.queryTimeout, location);
    this.records = new IdempotencyTable(b.table, dialect, connections, b.connectionProvider);
    this.ownedResource = b.ownedResource;
    this.purge =
        b.purgeInterval == null
            ? null
            : new PurgeSchedule(records, b.table, b.purgeInterval, b.purgeBatchSize);
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
    return records.claim(key, ownerToken, fingerprint, micros(lease, "lease"));
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
    return records.complete(key, ownerToken, outcome, micros(ttl, "ttl"));
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    return records.release(key, ownerToken);
  }

  /**
   * Deletes the live row of {@code key}, whatever its status and owner, in one statement on its own
   * connection (never in a caller's transaction). An expired row is left for {@link #purgeExpired}.
   */
  @Override
  public boolean delete(RecordKey key) {
    Objects.requireNonNull(key, "key");
    return records.delete(key);
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    return records.renew(key, ownerToken, micros(lease, "lease"));
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    Objects.requireNonNull(key, "key");
    return records.read(key);
  }

  @Override
  public int maxKeyLength() {
    return MAX_KEY_LENGTH;
  }

  /**
   * Deletes expired records in batches of at most {@code batchSize} rows, each in its own short
   * transaction, and returns how many rows were deleted. Expired records already behave as missing
   * ones, so purging only reclaims space.
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
    return records.purgeExpired(batchSize);
  }

  /**
   * Deletes at most {@code batchSize} expired rows in one short transaction, and returns how many;
   * for a purge paced by the caller (one batch, then a pause), where {@link #purgeExpired} runs its
   * batches back to back.
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
    return records.purgeBatch(batchSize);
  }

  /**
   * Stops the scheduled purge and closes what the store owns; a {@link DataSource} it was given
   * stays open.
   */
  @Override
  public void close() {
    if (purge != null) {
      purge.close();
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
     * When {@code true}, {@link #build()} runs the dialect's DDL ({@code CREATE TABLE IF NOT
     * EXISTS}); for demos and tests. Default {@code false}: run {@link
     * JdbcDialect#schemaResource()} with your migrations.
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
          location = StoreConnections.describe(md);
          if (chosen == null) {
            String product = md.getDatabaseProductName();
            chosen =
                JdbcDialect.forProductName(product)
                    .orElseThrow(
                        () ->
                            new IllegalStateException(
                                "the idempotency store supports PostgreSQL, MySQL/MariaDB and H2,"
                                    + " but the database is "
                                    + product
                                    + ": if it speaks one of those dialects, set it with"
                                    + " .dialect(JdbcDialect...)"));
          }
          if (createTable) {
            SchemaScript.create(c, chosen, table, (int) Math.max(1, queryTimeout.toSeconds()) * 6);
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
      JdbcIdempotencyStore store = new JdbcIdempotencyStore(this, chosen, location);
      LOG.info(
          "idempotency store on {} table {} ({})",
          location == null ? "a DataSource" : location,
          table,
          chosen);
      return store;
    }
  }
}
