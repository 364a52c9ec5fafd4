package dev.idempotent.internal;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the claims of running calls alive. One daemon thread for the whole JVM wakes every
 * {@value #TICK_MILLIS} ms and renews each registered claim once a third of its lease has passed since its last
 * renewal. Registering a call is one set insertion: no thread, task or timer per call.
 *
 * <p>A renewal the store refuses means the claim was taken over (the holder was paused past its lease): the
 * claim is marked lost, dropped from the set and reported; its holder's later complete will be refused too.
 * A renewal that fails (store down) is retried on the next tick; if the store stays down past the lease, the
 * claim expires in the store as designed.
 */
public final class LeaseRenewer {
  static final long TICK_MILLIS = 50;

  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.lease");
  private static final LeaseRenewer SHARED = new LeaseRenewer();

  private final Set<ActiveClaim> claims = ConcurrentHashMap.newKeySet();
  private volatile ScheduledExecutorService scheduler;

  public static LeaseRenewer shared() {
    return SHARED;
  }

  /** One running call's claim. */
  public static final class ActiveClaim {
    final IdempotencyStore store;
    final RecordKey key;
    final String ownerToken;
    final Duration lease;
    final long renewEveryNanos;
    final Consumer<ActiveClaim> onLost;
    volatile long lastRenewedNanos;
    volatile boolean lost;

    ActiveClaim(IdempotencyStore store, RecordKey key, String ownerToken, Duration lease, Consumer<ActiveClaim> onLost) {
      this.store = store;
      this.key = key;
      this.ownerToken = ownerToken;
      this.lease = lease;
      this.renewEveryNanos = Math.max(lease.toNanos() / 3, TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
      this.onLost = onLost;
      this.lastRenewedNanos = System.nanoTime();
    }

    /** True when a renewal was refused: another caller holds the key now. */
    public boolean isLost() {
      return lost;
    }
  }

  /** Starts renewing a claim until {@link #stop}. */
  public ActiveClaim start(IdempotencyStore store, RecordKey key, String ownerToken, Duration lease,
      Consumer<ActiveClaim> onLost) {
    ActiveClaim claim = new ActiveClaim(store, key, ownerToken, lease, onLost);
    claims.add(claim);
    if (scheduler == null) {
      startScheduler();
    }
    return claim;
  }

  /** Stops renewing; idempotent. */
  public void stop(ActiveClaim claim) {
    claims.remove(claim);
  }

  /** How many claims are being renewed (for tests and diagnostics). */
  public int activeCount() {
    return claims.size();
  }

  private synchronized void startScheduler() {
    if (scheduler != null) {
      return;
    }
    ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "idempotent-lease-renewer");
      t.setDaemon(true);
      return t;
    });
    s.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    scheduler = s;
  }

  void tick() {
    long now = System.nanoTime();
    for (ActiveClaim c : claims) {
      if (now - c.lastRenewedNanos < c.renewEveryNanos) {
        continue;
      }
      try {
        if (c.store.renew(c.key, c.ownerToken, c.lease)) {
          c.lastRenewedNanos = now;
        } else if (claims.remove(c)) {
          c.lost = true;
          LOG.warn("lease of {} was lost: another caller took the key over; this holder's outcome will not be recorded",
              c.key);
          try {
            c.onLost.accept(c);
          } catch (RuntimeException e) {
            LOG.warn("lease-lost callback failed", e);
          }
        }
      } catch (RuntimeException e) {
        LOG.warn("renewing the lease of {} failed, retrying on the next tick: {}", c.key,
            IdempotencyExecutor.describe(e));
      }
    }
  }
}
