package dev.idempotent.tck;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyClaim;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.LeaseRenewals;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many claims held at once in one store, renewed by the library's renewer while a competitor tries
 * again and again to claim the same keys: what the renewal test of each store and the capacity
 * harness in {@code benchmarks} run.
 *
 * <ol>
 *   <li>Claims {@code claims} keys through {@link Idempotency#claim} (the protocol's own claim and
 *       renewal, nothing bypassed), in windows of {@value #WINDOW} at a time.
 *   <li>For {@code hold}, a competitor sweeps over all keys, claiming each with the store's
 *       non-blocking {@code claimAsync} under an owner token of its own, {@value #WINDOW} in flight
 *       at a time: every attempt must be refused. One that acquires or takes a key over is a
 *       takeover (the holder's lease ended while it still ran); its claim is released at once. The
 *       store's renewal lag ({@link LeaseRenewals#lag}) is sampled from the first claim on.
 *   <li>Reads every record: it must be the holder's claim, in progress (not the competitor's, not
 *       missing). Then releases every claim.
 * </ol>
 */
public final class HeldClaimsRun {
  static final int WINDOW = 500;

  /** What a run saw. */
  public record Result(
      int claims,
      Duration lease,
      long competitorAttempts,
      long takeovers,
      long fenced,
      long renewalsLate,
      long renewalsFailed,
      int notHolders,
      Duration maxLag) {
    /**
     * Whether the renewals kept up: no takeover, no claim lost or fenced, every record still the
     * holder's, and the most overdue renewal less late than a third of the lease.
     */
    public boolean keptUp() {
      return takeovers == 0
          && fenced == 0
          && notHolders == 0
          && maxLag.compareTo(lease.dividedBy(3)) < 0;
    }
  }

  private HeldClaimsRun() {}

  /**
   * Runs once; the store is left open.
   *
   * @param store the store under test
   * @param storeName its name in the run's configuration, the name its renewal lag is read under
   *     ({@link LeaseRenewals}); one name per store object, the same in every run of that store
   * @param claims how many claims to hold at once
   * @param lease their lease
   * @param hold how long to hold them (and compete) once all are claimed
   */
  public static Result run(
      IdempotencyStore store, String storeName, int claims, Duration lease, Duration hold)
      throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String scope = "held-" + run;
    AtomicLong fenced = new AtomicLong();
    AtomicLong late = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .store(storeName, store)
                .listener(
                    e -> {
                      if (e.type() == IdempotencyEvent.Type.FENCED) {
                        fenced.incrementAndGet();
                      } else if (e.type() == IdempotencyEvent.Type.RENEWAL_LATE) {
                        late.incrementAndGet();
                      } else if (e.type() == IdempotencyEvent.Type.RENEWAL_FAILED) {
                        failed.incrementAndGet();
                      }
                    })
                .build());
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder(scope).store(storeName).lease(lease).build();

    AtomicLong maxLag = new AtomicLong();
    Thread sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                maxLag.accumulateAndGet(LeaseRenewals.lag(storeName).toNanos(), Math::max);
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "held-claims-lag-sampler");
    sampler.setDaemon(true);
    sampler.start();
    List<IdempotencyClaim> held = new ArrayList<>(claims);
    try {
      for (int from = 0; from < claims; from += WINDOW) {
        List<CompletableFuture<IdempotencyClaim>> window = new ArrayList<>();
        for (int i = from; i < Math.min(claims, from + WINDOW); i++) {
          window.add(idem.claim(policy, "k" + i).toCompletableFuture());
        }
        for (CompletableFuture<IdempotencyClaim> c : window) {
          IdempotencyClaim claim = c.get(1, TimeUnit.MINUTES);
          held.add(claim);
          if (!claim.runs()) {
            throw new IllegalStateException("a fresh key of the run was not claimed: " + claim);
          }
        }
      }

      AsyncIdempotencyStore async = Idempotency.nonBlocking(store);
      List<RecordKey> keys = new ArrayList<>(claims);
      for (int i = 0; i < claims; i++) {
        keys.add(RecordKey.of(scope, "k" + i).fittedTo(store.maxKeyLength()));
      }
      String competitor = "competitor-" + run;
      long attempts = 0;
      AtomicLong takeovers = new AtomicLong();
      long end = System.nanoTime() + hold.toNanos();
      while (System.nanoTime() < end) {
        for (int from = 0; from < claims && System.nanoTime() < end; from += WINDOW) {
          List<CompletableFuture<ClaimResult>> window = new ArrayList<>();
          for (int i = from; i < Math.min(claims, from + WINDOW); i++) {
            RecordKey key = keys.get(i);
            window.add(
                async
                    .claimAsync(key, competitor, null, lease)
                    .toCompletableFuture()
                    .thenCompose(
                        r -> {
                          if (!r.isAcquired()) {
                            return CompletableFuture.completedFuture(r);
                          }
                          takeovers.incrementAndGet();
                          return async
                              .releaseAsync(key, competitor)
                              .toCompletableFuture()
                              .thenApply(released -> r);
                        }));
          }
          for (CompletableFuture<ClaimResult> c : window) {
            c.get(1, TimeUnit.MINUTES);
            attempts++;
          }
        }
      }
      sampler.interrupt();
      sampler.join();

      int notHolders = 0;
      for (int from = 0; from < claims; from += WINDOW) {
        List<CompletableFuture<Optional<IdempotencyRecord>>> window = new ArrayList<>();
        for (int i = from; i < Math.min(claims, from + WINDOW); i++) {
          window.add(async.readAsync(keys.get(i)).toCompletableFuture());
        }
        for (CompletableFuture<Optional<IdempotencyRecord>> r : window) {
          Optional<IdempotencyRecord> record = r.get(1, TimeUnit.MINUTES);
          if (record.isEmpty()
              || record.get().isCompleted()
              || competitor.equals(record.get().ownerToken())) {
            notHolders++;
          }
        }
      }
      return new Result(
          claims,
          lease,
          attempts,
          takeovers.get(),
          fenced.get(),
          late.get(),
          failed.get(),
          notHolders,
          Duration.ofNanos(maxLag.get()));
    } finally {
      sampler.interrupt();
      List<CompletableFuture<Void>> releases = new ArrayList<>();
      for (IdempotencyClaim claim : held) {
        releases.add(claim.release().toCompletableFuture().exceptionally(e -> null));
        if (releases.size() == WINDOW) {
          CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
              .get(1, TimeUnit.MINUTES);
          releases.clear();
        }
      }
      CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
    }
  }
}
