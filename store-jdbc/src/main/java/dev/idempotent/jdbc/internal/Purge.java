package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.jdbc.internal.Values.PrimaryKey;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The purge of a store's tables, in bounded batches, each its own short transaction on its own
 * connection.
 *
 * <ul>
 *   <li><b>Records</b>: where the table has an index whose first column is {@code expires_at} (or
 *       an expression of it, as PostgreSQL's of the shipped DDL), a batch is at most that many
 *       expired rows found through it. Where it has none, the purge walks the primary key instead:
 *       one chunk of that many rows after the last one walked (kept between calls) at a time,
 *       deleting the chunk's expired rows, and starts again from the beginning after the end. Which
 *       of the two, it finds at its first batch from the table's indexes.
 *   <li><b>Scopes</b>: rows of the scope table that no record has any longer and that have gone
 *       unrefreshed for {@link ScopeRegistry#ORPHAN_AGE} ({@link ScopeRegistry} says why that is
 *       safe).
 * </ul>
 */
public final class Purge {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
  private static final int MAX_BATCHES = 10_000;

  /** A column name or an index expression that names {@code expires_at}. */
  private static final Pattern NAMES_EXPIRES_AT =
      Pattern.compile("(?i)(^|[^a-z0-9_$])\"?expires_at\"?([^a-z0-9_$]|$)");

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

  /** What runs on a purge's connection before its statements: the check of the tables' format. */
  @FunctionalInterface
  public interface Guard {
    void check(Connection c, int timeout) throws SQLException;
  }

  /** How the purge finds expired rows, and why: through the expiry index, or walking. */
  private record Way(boolean walks, String why) {}

  /** What one step of the purge did. */
  private record Step(int deleted, boolean walked, boolean reachedEnd) {}

  private final SqlAccessor db;
  private final StoreConnections connections;
  private final Guard guard;

  /** How the purge finds expired rows; {@code null} until its first batch finds it. */
  private volatile Way way;

  private volatile boolean wayLogged;

  /**
   * The primary key of the last row walked; {@code null} at the start. Changed under {@link #walk}.
   */
  private volatile PrimaryKey walkCursor;

  /** Held by a walking purge, so that one walk at a time moves the cursor. */
  private final Object walk = new Object();

  /** A purge that runs {@code guard} on each batch's connection before its statements. */
  public Purge(SqlAccessor db, StoreConnections connections, Guard guard) {
    this.db = db;
    this.connections = connections;
    this.guard = guard;
  }

  /**
   * Forgets how the table is purged and where the walk is, as when it may have been created again.
   */
  public void forget() {
    way = null;
    walkCursor = null;
  }

  /**
   * Deletes expired records in batches of at most {@code batchSize}, then the scope rows without
   * records that have gone unrefreshed for a day, with {@code pause} between one batch and the next
   * (an interrupted pause ends the purge, the thread stays interrupted); returns the records
   * deleted. Through the expiry index: until a batch finds fewer than {@code batchSize}. Walking:
   * from where the last purge left off to the end of the table and then from its beginning back to
   * there. At most {@value #MAX_BATCHES} batches (logged); the next purge continues.
   */
  public int purgeExpired(int batchSize, BatchPause pause) {
    int[] batches = {0};
    int records = purgeRecords(batchSize, pause, batches);
    if (Thread.currentThread().isInterrupted()) {
      return records;
    }
    int scopes = 0;
    while (batches[0]++ < MAX_BATCHES) {
      long began = System.nanoTime();
      int deleted = purgeScopes(batchSize);
      scopes += deleted;
      if (deleted < batchSize || !paused(pause, began, records + scopes)) {
        break;
      }
    }
    if (scopes > 0) {
      LOG.debug("purged {} scopes without records from {}", scopes, db.statements().scopeTable());
    }
    return records;
  }

  private int purgeRecords(int batchSize, BatchPause pause, int[] batches) {
    Way known = way;
    if (known != null && !known.walks()) {
      return throughIndex(batchSize, 0, batches, pause);
    }
    synchronized (walk) {
      PrimaryKey start = walkCursor;
      boolean wrapped = start == null;
      int total = 0;
      while (batches[0] < MAX_BATCHES) {
        batches[0]++;
        long began = System.nanoTime();
        Step step = step(batchSize, wrapped ? start : null);
        total += step.deleted();
        if (!step.walked()) {
          return step.deleted() < batchSize || !paused(pause, began, total)
              ? total
              : throughIndex(batchSize, total, batches, pause);
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

  /** The purge through the expiry index, after batches that deleted {@code total}. */
  private int throughIndex(int batchSize, int total, int[] batches, BatchPause pause) {
    while (batches[0] < MAX_BATCHES) {
      batches[0]++;
      long began = System.nanoTime();
      int deleted = purgeBatch(batchSize);
      total += deleted;
      if (deleted < batchSize || !paused(pause, began, total)) {
        return total;
      }
    }
    return stoppedAt(total);
  }

  /**
   * One batch of records: through the expiry index, at most {@code batchSize} expired rows;
   * walking, the expired rows of the next {@code batchSize} rows after the last ones walked.
   */
  public int purgeBatch(int batchSize) {
    Way known = way;
    if (known != null && !known.walks()) {
      return step(batchSize, null).deleted();
    }
    synchronized (walk) {
      return step(batchSize, null).deleted();
    }
  }

  /** One batch of at most {@code batchSize} scope rows without records, unrefreshed for a day. */
  public int purgeScopes(int batchSize) {
    Values purge = Values.purge(batchSize, ScopeRegistry.ORPHAN_AGE.toNanos() / 1000);
    return connections.runWithQueryTimeout(
        "purge",
        null,
        (c, t) -> {
          guard.check(c, t);
          return db.update(c, t, db.statements().purgeScopes(), purge);
        });
  }

  /** Pauses after the batch that began at {@code began}; false when the pause was interrupted. */
  private static boolean paused(BatchPause pause, long began, int deleted) {
    try {
      pause.after(System.nanoTime() - began, deleted);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private int stoppedAt(int total) {
    LOG.warn(
        "purge of {} stopped after {} batches ({} rows); the next purge continues",
        db.statements().table(),
        MAX_BATCHES,
        total);
    return total;
  }

  /**
   * One batch on its own connection. Walking, the chunk after the cursor, up to the row {@code
   * upTo} (when given: the walk then ends there) or to the end of the table, whose end puts the
   * cursor back at the beginning. A walking caller holds {@link #walk} before it takes the
   * connection (taken again inside only where the table was found to walk meanwhile).
   */
  private Step step(int batchSize, PrimaryKey upTo) {
    SqlStatements sql = db.statements();
    return connections.runWithQueryTimeout(
        "purge",
        null,
        (c, t) -> {
          guard.check(c, t);
          Way known = way(c, batchSize);
          if (!known.walks()) {
            return new Step(
                db.update(c, t, sql.purgeBatch(), Values.purge(batchSize, 0)), false, false);
          }
          synchronized (walk) {
            PrimaryKey after = walkCursor;
            PrimaryKey bound =
                db.queryRow(
                    c,
                    t,
                    sql.walkBound(after != null, upTo != null),
                    Values.walk(batchSize, after, upTo),
                    rs -> new PrimaryKey(rs.getObject(1), rs.getObject(2)));
            PrimaryKey end = bound != null ? bound : upTo;
            int deleted =
                db.update(
                    c,
                    t,
                    sql.walkDelete(after != null, end != null),
                    Values.walk(batchSize, after, end));
            walkCursor = end;
            return new Step(deleted, true, bound == null);
          }
        });
  }

  /** How the purge finds expired rows: found on {@code c} the first time, and logged once. */
  private Way way(Connection c, int batchSize) throws SQLException {
    Way known = way;
    if (known == null) {
      known = findWay(c);
      way = known;
      wayLogged = false;
    }
    if (!wayLogged) {
      wayLogged = true;
      String table = db.statements().table();
      if (known.walks()) {
        LOG.info(
            "table {} {}: the purge walks the primary key in batches of {} rows, deleting the"
                + " expired ones of each",
            table,
            known.why(),
            batchSize);
      } else {
        LOG.info(
            "table {} {}: the purge deletes at most {} expired rows a statement, found through it",
            table,
            known.why(),
            batchSize);
      }
    }
    return known;
  }

  /**
   * From the table's indexes as {@link DatabaseMetaData#getIndexInfo} reports them: through an
   * index whose first column is {@code expires_at} (or an expression of it), where there is one;
   * else by walking the primary key. Where the database reports no index of the table at all, not
   * even its primary key's, or fails to report them, the indexes could not be read, and the purge
   * is the one of the shipped DDL, through the index.
   */
  private Way findWay(Connection c) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    TableMetadata table =
        TableMetadata.of(c, db.statements().table(), db.statements().schemasAreCatalogs());
    boolean anyIndex = false;
    List<String> expiryIndexes = new ArrayList<>();
    try (ResultSet rs =
        md.getIndexInfo(table.catalog(), table.schema(), table.name(), false, true)) {
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
      return new Way(
          false,
          "has indexes the database's metadata would not report ("
              + (e.getSQLState() == null ? "" : "[" + e.getSQLState() + "] ")
              + JdbcUrls.withoutPassword(String.valueOf(e.getMessage()))
              + "), so it is taken to have the expiry index of the shipped DDL");
    }
    if (!expiryIndexes.isEmpty()) {
      return new Way(false, "has an index on expires_at (" + expiryIndexes.get(0) + ")");
    }
    if (!anyIndex) {
      return new Way(
          false,
          "has no index the database's metadata reports (its indexes could not be read), so it"
              + " is taken to have the expiry index of the shipped DDL");
    }
    return new Way(true, "has no index on expires_at");
  }
}
