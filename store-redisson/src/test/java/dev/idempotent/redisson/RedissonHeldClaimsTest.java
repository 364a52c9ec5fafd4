package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.tck.HeldClaimsRun;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Many claims held at once in one Redis store stay held while a competitor keeps trying to claim
 * their keys ({@link HeldClaimsRun}): the renewer keeps up with the number of held claims.
 */
class RedissonHeldClaimsTest {
  private static RedissonClient client;

  @BeforeAll
  static void connect() {
    client = RedisTestEnvironment.client(4, 32);
  }

  @AfterAll
  static void disconnect() {
    if (client != null) {
      client.shutdown();
    }
  }

  private static HeldClaimsRun.Result run(int claims, Duration lease, Duration hold)
      throws Exception {
    RedissonIdempotencyStore store =
        RedissonIdempotencyStore.builder(client).keyPrefix("idem-held:").build();
    HeldClaimsRun.Result result =
        HeldClaimsRun.run(store, "redis-held-" + java.util.UUID.randomUUID(), claims, lease, hold);
    System.out.println("RedissonHeldClaimsTest: " + result);
    return result;
  }

  private static void assertAllHeld(HeldClaimsRun.Result r) {
    assertThat(r.competitorAttempts()).as("competitor's attempts").isGreaterThan(r.claims());
    assertThat(r.takeovers()).as("keys the competitor took over: %s", r).isZero();
    assertThat(r.fenced()).as("claims the holder lost: %s", r).isZero();
    assertThat(r.notHolders()).as("records no longer the holder's claim: %s", r).isZero();
  }

  /**
   * 2,000 claims at a 3 s lease, held for more than two leases: the renewer of 8 single renewals in
   * flight per store (at most 160 renewals a second) lost most of them to the competitor.
   */
  @Test
  void twoThousandClaimsAtAThreeSecondLeaseAreAllKept() throws Exception {
    assertAllHeld(run(2_000, Duration.ofSeconds(3), Duration.ofSeconds(7)));
  }

  /** 10,000 claims at the default lease (30 s), held for two lease periods. */
  @Test
  void tenThousandClaimsAtTheDefaultLeaseAreKeptForTwoLeases() throws Exception {
    Duration lease = IdempotencyConfig.DEFAULT_LEASE;
    assertAllHeld(run(10_000, lease, lease.multipliedBy(2)));
  }
}
