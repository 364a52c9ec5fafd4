package dev.idempotent.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.HeldClaimsRun;
import java.time.Duration;
import java.util.Locale;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * How many claims one JVM can hold in one store while the renewer keeps up: holds {@code from}
 * claims for two leases against a competitor that keeps trying to claim their keys ({@link
 * HeldClaimsRun}), then twice as many, and so on up to {@code to}; a step keeps up when no key was
 * taken over, no claim was lost and the most overdue renewal was less late than a third of the
 * lease. Reports each step and the most claims that kept up.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.LeaseRenewalCapacityRun \
 *     redis redis://127.0.0.1:6379 10000 320000 30
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.LeaseRenewalCapacityRun \
 *     postgres 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres' 10000 320000 30
 * </pre>
 *
 * Arguments: {@code redis} or {@code postgres}, the server, the claims of the first step (default
 * 10,000), the most claims to try (default 320,000) and the lease in seconds (default 30, the
 * library's default lease). Each step takes about two leases and the time to claim and release.
 */
public final class LeaseRenewalCapacityRun {
  private LeaseRenewalCapacityRun() {}

  public static void main(String[] args) throws Exception {
    String kind = args.length > 0 ? args[0] : "redis";
    String url =
        args.length > 1
            ? args[1]
            : kind.equals("redis")
                ? "redis://127.0.0.1:6379"
                : "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    int from = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
    int to = args.length > 3 ? Integer.parseInt(args[3]) : 320_000;
    Duration lease =
        args.length > 4
            ? Duration.ofSeconds(Long.parseLong(args[4]))
            : IdempotencyConfig.DEFAULT_LEASE;
    if (from < 1 || to < from) {
      throw new IllegalArgumentException(
          "claims: the first step must be at least 1 and at most the last, were "
              + from
              + ", "
              + to);
    }
    RedissonClient redisson = null;
    HikariDataSource pool = null;
    IdempotencyStore store;
    switch (kind) {
      case "redis" -> {
        redisson = Redisson.create(RespPipe.redissonConfig(url, 32));
        store = RedissonIdempotencyStore.builder(redisson).keyPrefix("idem-capacity:").build();
      }
      case "postgres" -> {
        pool = JdbcRows.pool(url, 24);
        store = JdbcIdempotencyStore.builder(pool).createTable(true).build();
      }
      default ->
          throw new IllegalArgumentException("store: 'redis' or 'postgres', was '" + kind + "'");
    }
    try {
      System.out.printf(
          Locale.ROOT,
          "%-10s %12s %10s %10s %8s %8s %8s %10s %s%n",
          "claims",
          "competitor",
          "takeovers",
          "fenced",
          "late",
          "failed",
          "lost",
          "max lag",
          "kept up");
      int best = 0;
      for (int claims = from; claims <= to; claims *= 2) {
        HeldClaimsRun.Result r =
            HeldClaimsRun.run(store, "capacity-" + kind, claims, lease, lease.multipliedBy(2));
        System.out.printf(
            Locale.ROOT,
            "%-10d %12d %10d %10d %8d %8d %8d %8d ms %s%n",
            claims,
            r.competitorAttempts(),
            r.takeovers(),
            r.fenced(),
            r.renewalsLate(),
            r.renewalsFailed(),
            r.notHolders(),
            r.maxLag().toMillis(),
            r.keptUp() ? "yes" : "no");
        if (!r.keptUp()) {
          break;
        }
        best = claims;
      }
      System.out.printf(
          Locale.ROOT,
          "%s, lease %d s: renewals kept up with at most %s held claims (of the steps tried)%n",
          kind,
          lease.toSeconds(),
          best == 0 ? "none" : String.format(Locale.ROOT, "%,d", best));
    } finally {
      store.close();
      if (redisson != null) {
        redisson.shutdown();
      }
      if (pool != null) {
        pool.close();
      }
      dev.idempotent.Idempotency.shutdown();
    }
  }
}
