package dev.idempotent.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.tck.HeldClaimsRun;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Many claims held at once in one DynamoDB store stay held while a competitor keeps trying to claim
 * their keys ({@link HeldClaimsRun}): the renewer, through the store's concurrent batch renewal,
 * keeps up. Sized for dynalite on a shared test machine (a few seconds).
 */
class DynamoDbHeldClaimsTest {
  @Test
  void threeHundredClaimsAtAThreeSecondLeaseAreAllKept() throws Exception {
    try (DynamoDbIdempotencyStore store = DynamoDbTestEnvironment.storeOn("idem-held").build()) {
      HeldClaimsRun.Result r =
          HeldClaimsRun.run(
              store,
              "dynamodb-held-" + UUID.randomUUID(),
              300,
              Duration.ofSeconds(3),
              Duration.ofSeconds(7));
      System.out.println("DynamoDbHeldClaimsTest: " + r);
      assertThat(r.competitorAttempts()).as("competitor's attempts").isGreaterThan(r.claims());
      assertThat(r.takeovers()).as("keys the competitor took over: %s", r).isZero();
      assertThat(r.fenced()).as("claims the holder lost: %s", r).isZero();
      assertThat(r.notHolders()).as("records no longer the holder's claim: %s", r).isZero();
    }
  }
}
