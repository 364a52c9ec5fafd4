package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A purge of expired records every interval, on one daemon thread, until {@link #close()}. Between
 * two batches it pauses for {@value #PAUSE_PER_BATCH_TIME} times as long as the batch took (at most
 * {@value #MAX_PAUSE_MS} ms), so that it holds a connection and the database's time for at most a
 * fifth of its run and the live calls keep the rest; its rate still follows the database's speed.
 */
public final class PurgeSchedule implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);

  /** The pause after a batch, in multiples of the time the batch took. */
  static final int PAUSE_PER_BATCH_TIME = 4;

  /** The longest pause after a batch, however long it took. */
  static final long MAX_PAUSE_MS = 10_000;

  /** The pause of the scheduled purge (see the class comment). */
  static final IdempotencyTable.BatchPause PAUSE =
      batchNanos -> TimeUnit.NANOSECONDS.sleep(pauseNanos(batchNanos));

  /** The pause after a batch that took {@code batchNanos}. */
  static long pauseNanos(long batchNanos) {
    long max = TimeUnit.MILLISECONDS.toNanos(MAX_PAUSE_MS);
    if (batchNanos <= 0) {
      return 0;
    }
    return batchNanos >= max / PAUSE_PER_BATCH_TIME ? max : batchNanos * PAUSE_PER_BATCH_TIME;
  }

  private final ScheduledExecutorService purger;

  /**
   * Starts purging {@code table}, first after {@code interval}, with one {@link
   * IdempotencyTable#purgeExpired} of {@code batchSize} rows per batch each time (on a table
   * without an expiry index, one walk of the whole table), paced as the class comment says.
   */
  public PurgeSchedule(IdempotencyTable table, String tableName, Duration interval, int batchSize) {
    purger =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "idempotent-jdbc-purge");
              t.setDaemon(true);
              return t;
            });
    long ms = interval.toMillis();
    purger.scheduleWithFixedDelay(
        () -> {
          try {
            int n = table.purgeExpired(batchSize, PAUSE);
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
