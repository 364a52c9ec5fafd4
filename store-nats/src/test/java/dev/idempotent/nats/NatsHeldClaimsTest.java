package dev.idempotent.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.tck.HeldClaimsRun;
import io.nats.client.Connection;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Many claims held at once in one NATS store stay held while a competitor keeps trying to claim
 * their keys ({@link HeldClaimsRun}): the renewer keeps up with the number of held claims.
 */
class NatsHeldClaimsTest {
  private static Connection connection;
  private static final String BUCKET = NatsTestEnvironment.bucketName("held");

  @BeforeAll
  static void connect() {
    connection = NatsTestEnvironment.connect();
  }

  @AfterAll
  static void disconnect() {
    if (connection != null) {
      NatsTestEnvironment.deleteBucket(connection, BUCKET);
    }
    NatsTestEnvironment.close(connection);
  }

  /** 2,000 claims at a 3 s lease, held for more than two leases, renewed every second. */
  @Test
  void twoThousandClaimsAtAThreeSecondLeaseAreAllKept() throws Exception {
    try (NatsIdempotencyStore store =
        NatsIdempotencyStore.builder(connection).bucket(BUCKET).build()) {
      HeldClaimsRun.Result r =
          HeldClaimsRun.run(
              store,
              "nats-held-" + UUID.randomUUID(),
              2_000,
              Duration.ofSeconds(3),
              Duration.ofSeconds(7));
      System.out.println("NatsHeldClaimsTest: " + r);
      assertThat(r.competitorAttempts()).as("competitor's attempts").isGreaterThan(r.claims());
      assertThat(r.takeovers()).as("keys the competitor took over: %s", r).isZero();
      assertThat(r.fenced()).as("claims the holder lost: %s", r).isZero();
      assertThat(r.notHolders()).as("records no longer the holder's claim: %s", r).isZero();
    }
  }
}
