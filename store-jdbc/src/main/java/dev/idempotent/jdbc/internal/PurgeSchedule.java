package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A purge of expired records every interval, on one daemon thread, until {@link #close()}. */
public final class PurgeSchedule implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);

  private final ScheduledExecutorService purger;

  /**
   * Starts purging {@code table}, first after {@code interval}, with one {@link
   * IdempotencyTable#purgeExpired} of {@code batchSize} rows per batch each time (on a table
   * without an expiry index, one walk of the whole table).
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
            int n = table.purgeExpired(batchSize);
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
