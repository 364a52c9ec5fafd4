package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A store whose renewals stall shows it in its store-wide renewal lag ({@link LeaseRenewals}) and
 * in a WARN that names the store, before the lease can end; a healthy store beside it shows none.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RenewalLagTest {
  private static final Duration LEASE = Duration.ofMillis(900);

  private final RealClockStore healthy = new RealClockStore();
  private final RealClockStore stalled = new RealClockStore();
  private final CountDownLatch unstall = new CountDownLatch(1);
  private final ByteArrayOutputStream log = new ByteArrayOutputStream();
  private PrintStream originalErr;

  @BeforeEach
  void captureLog() {
    originalErr = System.err;
    PrintStream both =
        new PrintStream(
            new OutputStream() {
              @Override
              public synchronized void write(int b) {
                originalErr.write(b);
                log.write(b);
              }

              @Override
              public synchronized void write(byte[] b, int off, int len) {
                originalErr.write(b, off, len);
                log.write(b, off, len);
              }
            },
            true,
            StandardCharsets.UTF_8);
    System.setErr(both);
  }

  @AfterEach
  void restore() {
    unstall.countDown();
    System.setErr(originalErr);
  }

  private String logged() {
    synchronized (log) {
      return log.toString(StandardCharsets.UTF_8);
    }
  }

  /** Polls {@code condition} every 10 ms; gives up after 20 s (a bound, not a measured time). */
  private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < giveUp) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(10);
    }
    return condition.getAsBoolean();
  }

  @Test
  void aStoreWhoseRenewalsStallShowsItsLagAndWarnsBeforeALeaseCanEnd() throws Exception {
    String stalledName = "stalled-" + UUID.randomUUID();
    String healthyName = "healthy-" + UUID.randomUUID();
    stalled.beforeRenew = () -> unstall.await(30, TimeUnit.SECONDS);
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(healthy)
                .store(stalledName, stalled)
                .store(healthyName, healthy)
                .build());
    IdempotencyClaim stalledClaim =
        idem.claim(IdempotencyPolicy.builder("lag").store(stalledName).lease(LEASE).build(), "k")
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    IdempotencyClaim healthyClaim =
        idem.claim(IdempotencyPolicy.builder("lag").store(healthyName).lease(LEASE).build(), "k")
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    assertThat(stalledClaim.runs()).isTrue();
    assertThat(healthyClaim.runs()).isTrue();

    // the first renewal is due after a third of the lease and stalls: the lag grows from there
    assertThat(eventually(() -> LeaseRenewals.lag(stalledName).toNanos() >= LEASE.toNanos() / 6))
        .as(
            "lag of the stalled store reaches a sixth of the lease: %s",
            LeaseRenewals.lag(stalledName))
        .isTrue();
    assertThat(eventually(() -> logged().contains("lease renewals of store " + stalledName)))
        .as("a WARN names the stalled store; log:%n%s", logged())
        .isTrue();
    String warning =
        logged()
            .lines()
            .filter(l -> l.contains("lease renewals of store " + stalledName))
            .findFirst()
            .orElseThrow();
    assertThat(warning)
        .contains("WARN")
        .contains("falling behind")
        .contains("idempotent.lease.renewal.lag");
    assertThat(LeaseRenewals.heldClaims(stalledName)).isEqualTo(1);
    assertThat(LeaseRenewals.stores()).contains(stalledName, healthyName);
    assertThat(healthy.renewals.get()).as("renewals of the healthy store meanwhile").isPositive();
    assertThat(logged())
        .as("the healthy store is never said to fall behind")
        .doesNotContain("lease renewals of store " + healthyName);

    unstall.countDown();
    stalledClaim.release().toCompletableFuture().get(10, TimeUnit.SECONDS);
    healthyClaim.release().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(
            eventually(
                () ->
                    LeaseRenewals.heldClaims(stalledName) == 0
                        && LeaseRenewals.lag(stalledName).isZero()))
        .as("no claim held in the stalled store any more, no lag")
        .isTrue();
  }
}
