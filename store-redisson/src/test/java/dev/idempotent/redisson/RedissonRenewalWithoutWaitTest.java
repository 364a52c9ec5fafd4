package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * With {@code syncReplicas} and no replica answering, every write but a renewal waits for {@code
 * WAIT}'s timeout: renewals never send {@code WAIT} (counted by the server, a test-owned {@code
 * redis-server}), so a slow or missing replica cannot hold the renewals back.
 */
class RedissonRenewalWithoutWaitTest {
  private static RedisServerProcess server;
  private static RedissonClient client;

  @BeforeAll
  static void start() throws Exception {
    server = RedisServerProcess.launch();
    Config config = new Config();
    config.useSingleServer().setAddress(server.url()).setTimeout(3_000).setRetryAttempts(1);
    client = Redisson.create(config);
  }

  @AfterAll
  static void stop() throws Exception {
    if (client != null) {
      client.shutdown();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void renewalsNeverWaitForReplicasWhileOtherWritesDo() throws Exception {
    RedissonIdempotencyStore plain = RedissonIdempotencyStore.builder(client).build();
    RedissonIdempotencyStore synced =
        RedissonIdempotencyStore.builder(client).syncReplicas(1, Duration.ofMillis(200)).build();
    List<HeldClaim> claims = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      RecordKey key = RecordKey.of("renew-no-wait", "k" + i);
      String owner = "owner-" + i;
      assertThat(plain.claim(key, owner, null, Duration.ofSeconds(30)).isAcquired()).isTrue();
      claims.add(new HeldClaim(key, owner));
    }
    long waitsBefore = server.commandCalls("wait");

    boolean[] renewed = synced.renewAll(claims, Duration.ofSeconds(60));
    boolean one =
        synced.renew(claims.get(0).key(), claims.get(0).ownerToken(), Duration.ofSeconds(60));
    boolean[] renewedAsync =
        synced.renewAllAsync(claims, Duration.ofSeconds(60)).toCompletableFuture().get();

    assertThat(renewed).as("renewAll").containsOnly(true).hasSize(50);
    assertThat(one).as("renew").isTrue();
    assertThat(renewedAsync).as("renewAllAsync").containsOnly(true).hasSize(50);
    assertThat(server.commandCalls("wait") - waitsBefore).as("WAIT sent by renewals").isZero();

    // the counter does count: a completion through the same store waits for its replica
    synced.complete(
        claims.get(1).key(),
        claims.get(1).ownerToken(),
        "done".getBytes(StandardCharsets.UTF_8),
        Duration.ofMinutes(1));
    assertThat(server.commandCalls("wait") - waitsBefore)
        .as("WAIT sent by a completion")
        .isEqualTo(1);
  }
}
