package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A purge of expired records, then of the scope rows without records ({@link Purge#purgeExpired}),
 * every interval, on one daemon thread, until {@link #close()}, paced so that the live calls keep
 * the database:
 *
 * <ul>
 *   <li>on schedule, a run spreads its batches over half the interval, at the rate that deletes as
 *       many rows as the run before deleted: two to three times the rate at which records expire;
 *   <li>whatever that rate, after each batch it pauses at least {@value #PAUSE_PER_BATCH_TIME}
 *       times as long as the batch took (at most {@value #MAX_PAUSE_MS} ms), so that it works at
 *       most a fifth of the time: the pace of a first run, which knows no run before, and of a run
 *       that has fallen behind (still running after the interval), so that a backlog is caught up
 *       at a rate that follows the database's speed.
 * </ul>
 */
public final class PurgeSchedule implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);

  /** The least pause after a batch, in multiples of the time the batch took. */
  static final int PAUSE_PER_BATCH_TIME = 4;

  /** The longest pause after a batch, however long it took. */
  static final long MAX_PAUSE_MS = 10_000;

  /**
   * The pause after a batch that took {@code batchNanos}, when the run has deleted {@code deleted}
   * rows in {@code elapsedNanos} since it began, the run before deleted {@code previousDeleted} (0:
   * none, or no run before) and runs start every {@code intervalNanos}.
   */
  static long pauseNanos(
      long batchNanos, long deleted, long elapsedNanos, long previousDeleted, long intervalNanos) {
    long max = TimeUnit.MILLISECONDS.toNanos(MAX_PAUSE_MS);
    long least =
        batchNanos <= 0
            ? 0
            : batchNanos >= max / PAUSE_PER_BATCH_TIME ? max : batchNanos * PAUSE_PER_BATCH_TIME;
    if (previousDeleted <= 0 || elapsedNanos >= intervalNanos || deleted <= 0) {
      return least;
    }
    double due = (double) deleted / previousDeleted * (intervalNanos / 2.0);
    return Math.max(least, (long) Math.min(max, due - elapsedNanos));
  }

  private final ScheduledExecutorService purger;

  /**
   * Starts purging {@code table}, first after {@code interval}, with one {@link Purge#purgeExpired}
   * of {@code batchSize} rows per batch each time (on a table without an expiry index, one walk of
   * the whole table), paced as the class comment says.
   */
  public PurgeSchedule(Purge purge, String tableName, Duration interval, int batchSize) {
    purger =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "idempotent-jdbc-purge");
              t.setDaemon(true);
              return t;
            });
    long ms = interval.toMillis();
    long intervalNanos = interval.toNanos();
    long[] previousDeleted = {0};
    purger.scheduleWithFixedDelay(
        () -> {
          long began = System.nanoTime();
          try {
            int n =
                purge.purgeExpired(
                    batchSize,
                    (batchNanos, deleted) ->
                        TimeUnit.NANOSECONDS.sleep(
                            pauseNanos(
                                batchNanos,
                                deleted,
                                System.nanoTime() - began,
                                previousDeleted[0],
                                intervalNanos)));
            previousDeleted[0] = n;
            if (n > 0) {
              LOG.debug("purged {} expired idempotency records from {}", n, tableName);
            }
          } catch (RuntimeException e) {
            LOG.warn("scheduled purge of {} failed: {}", tableName, e.getMessage());
          }
        },
        ms,
        ms,
        TimeUnit.MILLISECONDS);
  }

  /** Stops the purge; one that is running is interrupted. */
  @Override
  public void close() {
    purger.shutdownNow();
  }
}
