package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyStoreException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * What {@code syncReplicas} is for: a primary and a replica started by the test on loopback ports,
 * a call completed on the primary, the primary stopped and the replica promoted ({@code REPLICAOF
 * NO ONE}), the repeat sent to the promoted replica. With the completion acknowledged by the
 * replica the repeat replays; without it (the replica frozen and its link dropped) the record is
 * lost and the repeat runs the method again; with {@link ReplicaSyncTimeout#FAIL} that case fails
 * the call instead of reporting a success the failover then forgets.
 */
class RedisFailoverTest {
  private final String scope = "failover-" + UUID.randomUUID();
  private final IdempotencyPolicy policy =
      IdempotencyPolicy.builder(scope).resultType(String.class).ttl(Duration.ofMinutes(5)).build();
  private final AtomicInteger charges = new AtomicInteger();

  private String charge() {
    return "charge-" + charges.incrementAndGet();
  }

  private static RedissonClient client(RedisServerProcess server) {
    Config config = new Config();
    config
        .useSingleServer()
        .setAddress(server.url())
        .setConnectionMinimumIdleSize(1)
        .setTimeout(2_000)
        .setRetryAttempts(1);
    return Redisson.create(config);
  }

  private static void replicate(RedisServerProcess primary, RedisServerProcess replica)
      throws Exception {
    replica.cli("REPLICAOF", "127.0.0.1", Integer.toString(primary.port()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!primary.cli("INFO", "replication").contains("connected_slaves:1")
        || !replica.cli("INFO", "replication").contains("master_link_status:up")) {
      assertThat(System.nanoTime() - deadline).as("replica in sync within 20 s").isNegative();
      Thread.sleep(50);
    }
  }

  /** Stops the primary, promotes the replica, and sends the repeat there. */
  private String repeatAfterFailover(RedisServerProcess primary, RedisServerProcess replica)
      throws Exception {
    primary.stop();
    replica.resume();
    assertThat(replica.cli("REPLICAOF", "NO", "ONE").trim()).isEqualTo("OK");
    RedissonClient promoted = client(replica);
    try {
      Idempotency afterFailover =
          Idempotency.create(
              IdempotencyConfig.builder()
                  .defaultStore(RedissonIdempotencyStore.builder(promoted).build())
                  .build());
      return afterFailover.execute(policy, "order-1", this::charge);
    } finally {
      promoted.shutdown();
    }
  }

  private static Idempotency onPrimary(RedissonIdempotencyStore.Builder store) {
    return Idempotency.create(IdempotencyConfig.builder().defaultStore(store.build()).build());
  }

  @Test
  void aCompletionTheReplicaAcknowledgedIsReplayedAfterFailover() throws Exception {
    try (RedisServerProcess primary = RedisServerProcess.launch();
        RedisServerProcess replica = RedisServerProcess.launch()) {
      replicate(primary, replica);
      RedissonClient client = client(primary);
      try {
        Idempotency idempotency =
            onPrimary(
                RedissonIdempotencyStore.builder(client)
                    .syncReplicas(1, Duration.ofSeconds(5), ReplicaSyncTimeout.FAIL));
        assertThat(idempotency.execute(policy, "order-1", this::charge)).isEqualTo("charge-1");
      } finally {
        client.shutdown();
      }

      assertThat(repeatAfterFailover(primary, replica)).isEqualTo("charge-1");
      assertThat(charges).as("the repeat was replayed from the promoted replica").hasValue(1);
    }
  }

  @Test
  void withoutTheOptionACompletionNotYetReplicatedIsLostInAFailover() throws Exception {
    try (RedisServerProcess primary = RedisServerProcess.launch();
        RedisServerProcess replica = RedisServerProcess.launch()) {
      replicate(primary, replica);
      RedissonClient client = client(primary);
      try {
        Idempotency idempotency = onPrimary(RedissonIdempotencyStore.builder(client));
        // Replication falls behind, as over a slow or broken link: the replica is frozen and the
        // primary drops its link, so nothing written from now on reaches the replica.
        replica.pause();
        assertThat(primary.cli("CLIENT", "KILL", "TYPE", "replica").trim()).isNotEqualTo("0");
        assertThat(idempotency.execute(policy, "order-1", this::charge)).isEqualTo("charge-1");
      } finally {
        client.shutdown();
      }

      assertThat(repeatAfterFailover(primary, replica))
          .as("the record never reached the replica, so the repeat runs the method again")
          .isEqualTo("charge-2");
      assertThat(charges).hasValue(2);
    }
  }

  @Test
  void withFailAnUnacknowledgedCompletionFailsTheCallAfterTheMethodRan() throws Exception {
    try (RedisServerProcess primary = RedisServerProcess.launch();
        RedisServerProcess replica = RedisServerProcess.launch()) {
      replicate(primary, replica);
      RedissonClient client = client(primary);
      try {
        Idempotency idempotency =
            onPrimary(
                RedissonIdempotencyStore.builder(client)
                    .syncReplicas(1, Duration.ofMillis(300), ReplicaSyncTimeout.FAIL));
        replica.pause();
        assertThatThrownBy(() -> idempotency.execute(policy, "order-1", this::charge))
            .isInstanceOf(IdempotencyStoreException.class)
            .hasMessageContaining("the method ran and its outcome was recorded")
            .hasMessageContaining("reached 0 of 1 replicas")
            .hasMessageContaining("ambiguous")
            .hasMessageNotContaining("order-1");
        assertThat(charges).hasValue(1);
        assertThat(idempotency.execute(policy, "order-1", this::charge))
            .as("on the same primary the record is there: a repeat replays it")
            .isEqualTo("charge-1");

        Idempotency warning =
            onPrimary(
                RedissonIdempotencyStore.builder(client)
                    .syncReplicas(1, Duration.ofMillis(300), ReplicaSyncTimeout.WARN));
        assertThat(warning.execute(policy, "order-2", this::charge))
            .as("with WARN the same timeout only logs")
            .isEqualTo("charge-2");
      } finally {
        replica.resume();
        client.shutdown();
      }
    }
  }
}
