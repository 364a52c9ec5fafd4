package dev.idempotent.nats.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server's clock as this store knows it, so that leases and ttls are judged by the time
 * JetStream stamps on entries and never by this host's wall clock.
 *
 * <p>A probe writes this store's own clock entry ({@code clock.<random id>}, so that no other
 * instance overwrites it) and reads back, by its revision, the timestamp the server gave it: the
 * server stamped it between the moment the write was sent and the moment its acknowledgement
 * arrived, both taken from this JVM's monotonic clock. From then on, the server's time is at least
 * that timestamp plus the monotonic time elapsed since the acknowledgement: the store uses this
 * lower bound, so it may judge a lease ended up to one round trip late, never early. The probe is
 * repeated every {@link #REFRESH_NANOS} in the background, so a step of the server's clock is
 * followed within that period.
 */
public final class ServerClock {
  static final long REFRESH_NANOS = 10_000_000_000L;

  private record Reading(long serverMillis, long ackNanos) {}

  private final BucketAccess bucket;
  private final String subject;
  private volatile Reading reading;
  private final AtomicBoolean probing = new AtomicBoolean();

  public ServerClock(BucketAccess bucket) {
    this.bucket = bucket;
    byte[] id = new byte[16];
    new java.security.SecureRandom().nextBytes(id);
    this.subject =
        bucket
            .names()
            .subject(
                KeyNames.CLOCK_KEY
                    + "."
                    + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(id));
  }

  /** Probes once; the future completes when the store knows the server's time. */
  public CompletableFuture<Void> probe() {
    return bucket
        .write(subject, new byte[0])
        .thenCompose(
            revision -> {
              long acked = System.nanoTime();
              return bucket
                  .at(revision)
                  .thenAccept(
                      e -> {
                        if (e == null) {
                          throw new IllegalStateException(
                              "the clock entry just written is missing from the bucket");
                        }
                        reading = new Reading(e.serverMillis(), acked);
                      });
            })
        .whenComplete((v, e) -> probing.set(false));
  }

  /**
   * The server's time now, in epoch milliseconds, never ahead of it; starts a probe in the
   * background when the last one is older than {@link #REFRESH_NANOS}.
   */
  public long nowMillis() {
    Reading r = reading;
    if (r == null) {
      throw new IllegalStateException("the server's clock was never read");
    }
    long now = System.nanoTime();
    if (now - r.ackNanos > REFRESH_NANOS && probing.compareAndSet(false, true)) {
      probe();
    }
    return r.serverMillis + (now - r.ackNanos) / 1_000_000;
  }
}
