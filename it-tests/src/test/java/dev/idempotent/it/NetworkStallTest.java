package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.redisson.RedisServerProcess;
import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A TCP proxy between the store's client and Redis (or PostgreSQL) stalls the network mid-run (1.5
 * s of no forwarding), then slows every chunk down, then cuts every connection. Calls time out
 * cleanly with {@code IdempotencyStoreException} within the configured timeouts plus slack, and
 * once the proxy heals every submission completes with the same invariant as in {@link
 * StoreOutageTest}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class NetworkStallTest {

  @AfterEach
  void resetGlobal() {
    Idempotency.reset();
  }

  @Test
  void redisBehindAStallingSlowAndCuttingProxy() throws Exception {
    Duration timeout = Duration.ofMillis(500);
    Duration failsWithin = timeout.multipliedBy(2).plusMillis(100).plus(StoreOutageTest.SLACK);
    String runId = UUID.randomUUID().toString();
    try (RedisServerProcess storeServer = RedisServerProcess.launch();
        RedisServerProcess ledgerServer = RedisServerProcess.launch();
        TcpProxy proxy = new TcpProxy(storeServer.port());
        IdempotencyStore store =
            new BackendSpec("redis://127.0.0.1:" + proxy.port())
                .openStore("idem-it-stall", timeout, false);
        Ledger ledger = new BackendSpec(ledgerServer.url()).openLedger("idem-it-stall")) {
      stallSlowAndCut(proxy, store, ledger, runId, "Redis", failsWithin);
    }
  }

  @Test
  void postgresBehindAStallingSlowAndCuttingProxy() throws Exception {
    Duration timeout = Duration.ofSeconds(1);
    // a call may wait for a pooled connection (up to the timeout) and then for its statement
    // (network timeout)
    Duration failsWithin = timeout.multipliedBy(2).plus(StoreOutageTest.SLACK);
    String direct = TestEnvironment.postgresUrl();
    Matcher m = Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)(/.*)").matcher(direct);
    assertThat(m.matches()).as("a jdbc:postgresql://host:port/... URL: %s", direct).isTrue();
    BackendSpec directSpec = new BackendSpec(direct);
    Backend.prepare(directSpec);
    String runId = UUID.randomUUID().toString();
    try (TcpProxy proxy = new TcpProxy(Integer.parseInt(m.group(2)));
        IdempotencyStore store =
            new BackendSpec("jdbc:postgresql://127.0.0.1:" + proxy.port() + m.group(3))
                .openStore("idem-it-stall", timeout, false);
        Ledger ledger = directSpec.openLedger("idem-it-stall")) {
      stallSlowAndCut(proxy, store, ledger, runId, "PostgreSQL", failsWithin);
    }
  }

  /**
   * Runs 200 keys × 5 submissions while the proxy stalls 1.5 s, then slows down, then cuts every
   * connection.
   */
  private static void stallSlowAndCut(
      TcpProxy proxy,
      IdempotencyStore store,
      Ledger ledger,
      String runId,
      String backend,
      Duration failsWithin)
      throws Exception {
    CallObserver observer = new CallObserver();
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).listener(observer).build());
    InJvmRun run = new InJvmRun(200, 5);
    run.start(8, observer, new LedgerService(ledger, "in-test"), runId, 5, 120);
    run.awaitProgress(0.2, 30);
    proxy.pause();
    Thread.sleep(1500);
    proxy.heal();
    int errorsAfterPause = run.storeErrors().size();
    run.awaitProgress(0.45, 30);
    proxy.slow(20);
    Thread.sleep(1000);
    proxy.heal();
    run.awaitProgress(0.7, 30);
    proxy.cut();
    assertThat(run.finish(120)).as("every submission got a result after the proxy healed").isTrue();
    assertThat(errorsAfterPause).as("calls that timed out while the proxy stalled").isPositive();
    StoreOutageTest.check(
        backend + " behind a proxy: stalled 1.5 s, slowed 1 s, cut",
        run,
        ledger,
        runId,
        failsWithin);
  }
}
