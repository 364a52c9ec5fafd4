package dev.idempotent.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.nats.internal.KeyNames;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import io.nats.client.Connection;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.StorageType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the NATS store does beyond the kit: its bucket, its key names, its outcomes, its waits. */
class NatsIdempotencyStoreTest {
  private static final Duration LEASE = Duration.ofSeconds(60);
  private static final Duration TTL = Duration.ofMinutes(10);
  private static Connection connection;
  private final List<String> buckets = new ArrayList<>();

  @BeforeAll
  static void connect() {
    connection = NatsTestEnvironment.connect();
  }

  @AfterAll
  static void disconnect() {
    NatsTestEnvironment.close(connection);
  }

  @AfterEach
  void deleteBuckets() {
    buckets.forEach(b -> NatsTestEnvironment.deleteBucket(connection, b));
  }

  private String bucket() {
    String b = NatsTestEnvironment.bucketName("store");
    buckets.add(b);
    return b;
  }

  private NatsIdempotencyStore store(String bucket) {
    return NatsIdempotencyStore.builder(connection).bucket(bucket).build();
  }

  private static String owner() {
    return "owner-" + UUID.randomUUID();
  }

  @Test
  void manyInstancesCreatingTheMissingBucketAtOnceAllComeUp() throws Exception {
    String bucket = bucket();
    int instances = 8;
    ExecutorService pool = Executors.newFixedThreadPool(instances);
    CountDownLatch go = new CountDownLatch(1);
    List<Connection> connections = new ArrayList<>();
    List<Future<NatsIdempotencyStore>> started = new ArrayList<>();
    try {
      for (int i = 0; i < instances; i++) {
        Connection own = NatsTestEnvironment.connect();
        connections.add(own);
        started.add(
            pool.submit(
                () -> {
                  go.await();
                  return NatsIdempotencyStore.builder(own).bucket(bucket).build();
                }));
      }
      go.countDown();
      List<NatsIdempotencyStore> stores = new ArrayList<>();
      for (Future<NatsIdempotencyStore> f : started) {
        stores.add(f.get(30, TimeUnit.SECONDS));
      }
      RecordKey key = RecordKey.of("race", "k");
      int acquired = 0;
      for (NatsIdempotencyStore s : stores) {
        if (s.claim(key, owner(), null, LEASE).isAcquired()) {
          acquired++;
        }
      }
      assertThat(acquired).as("one bucket shared by all instances: one claim wins").isEqualTo(1);
      stores.forEach(NatsIdempotencyStore::close);
    } finally {
      pool.shutdownNow();
      connections.forEach(NatsTestEnvironment::close);
    }
  }

  @Test
  void aBucketWhoseMaxAgeIsShorterThanTheLongestTtlIsRefused() throws Exception {
    String bucket = bucket();
    connection
        .keyValueManagement()
        .create(
            KeyValueConfiguration.builder()
                .name(bucket)
                .maxHistoryPerKey(1)
                .ttl(Duration.ofHours(1))
                .storageType(StorageType.Memory)
                .build());

    assertThatThrownBy(() -> store(bucket))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'" + bucket + "'")
        .hasMessageContaining("max age")
        .hasMessageContaining("PT24H");
    try (NatsIdempotencyStore s =
        NatsIdempotencyStore.builder(connection)
            .bucket(bucket)
            .longestTtl(Duration.ofMinutes(30))
            .build()) {
      RecordKey key = RecordKey.of("s", "k");
      String owner = owner();
      assertThat(s.claim(key, owner, null, LEASE).isAcquired()).isTrue();
      assertThatThrownBy(() -> s.complete(key, owner, new byte[] {1}, Duration.ofHours(2)))
          .isInstanceOfSatisfying(
              OutcomeNotRecordedException.class, e -> assertThat(e.failsTheCall()).isFalse())
          .hasMessageContaining("max age");
    }
  }

  @Test
  void aMissingBucketThatMayNotBeCreatedIsNamedWithTheCommandThatCreatesIt() {
    String bucket = bucket();
    assertThatThrownBy(
            () ->
                NatsIdempotencyStore.builder(connection).bucket(bucket).createBucket(false).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'" + bucket + "' does not exist")
        .hasMessageContaining("nats kv add " + bucket);
  }

  @Test
  void invalidBuilderValuesAreRefusedNamingTheValue() {
    NatsIdempotencyStore.Builder b = NatsIdempotencyStore.builder(connection);
    assertThatThrownBy(() -> b.bucket("a.b")).hasMessageContaining("'a.b'");
    assertThatThrownBy(() -> b.bucket("")).hasMessageContaining("bucket name");
    assertThatThrownBy(() -> b.replicas(0)).hasMessageContaining("was 0");
    assertThatThrownBy(() -> b.timeout(Duration.ZERO)).hasMessageContaining("timeout");
    assertThatThrownBy(() -> b.maxAge(Duration.ofHours(1)).build())
        .hasMessageContaining("maxAge PT1H must exceed longestTtl PT24H");
  }

  @Test
  void hostileKeysBecomeSubjectTokensAndKeepRecordsOfTheirOwn() {
    try (NatsIdempotencyStore s = store(bucket())) {
      Pattern token = Pattern.compile("r\\.[0-9a-f]{16}\\.[A-Za-z0-9_-]+");
      List<String> keys =
          List.of(
              "a.b",
              "a",
              "b",
              "a b",
              "*",
              ">",
              "a.*",
              "a.>",
              "..",
              ".",
              "$KV",
              "中文.キー 😀",
              "x".repeat(256),
              "x".repeat(255) + "y",
              "y".repeat(5000));
      Map<RecordKey, String> owners = new LinkedHashMap<>();
      for (String scope : List.of("scope", "scope.*", "scope >")) {
        for (String k : keys) {
          RecordKey key = RecordKey.of(scope, k).fittedTo(s.maxKeyLength());
          assertThat(KeyNames.recordKey(key)).as("name of %s", key).matches(token);
          String owner = owner();
          assertThat(s.claim(key, owner, null, LEASE).isAcquired()).as("claim of %s", key).isTrue();
          owners.put(key, owner);
        }
      }
      owners.forEach(
          (key, owner) -> assertThat(s.read(key).orElseThrow().ownerToken()).isEqualTo(owner));
    }
  }

  @Test
  void anOutcomeLargerThanOneEntryIsKeptInChunksAndReadBackExactly() {
    try (NatsIdempotencyStore s = store(bucket())) {
      byte[] outcome = new byte[s.entryLimit() * 3 + 17];
      new Random(7).nextBytes(outcome);
      RecordKey key = RecordKey.of("chunks", "k");
      String owner = owner();
      s.claim(key, owner, "fp", LEASE);

      assertThat(s.complete(key, owner, outcome.clone(), TTL)).isTrue();
      assertThat(s.complete(key, owner, outcome.clone(), TTL))
          .as("an exact repeat of the completion by its owner")
          .isTrue();
      assertThat(s.complete(key, owner(), outcome.clone(), TTL)).as("another owner").isFalse();

      IdempotencyRecord replay = s.claim(key, owner(), "fp", LEASE).existing();
      assertThat(Arrays.equals(replay.outcome(), outcome)).isTrue();
      assertThat(replay.fingerprint()).isEqualTo("fp");
    }
  }

  @Test
  void anOutcomeOverTheLimitReleasesTheKeyNamingSizeAndSetting() {
    try (NatsIdempotencyStore s =
        NatsIdempotencyStore.builder(connection).bucket(bucket()).maxOutcomeBytes(1000).build()) {
      RecordKey key = RecordKey.of("big", "k");
      String owner = owner();
      s.claim(key, owner, null, LEASE);

      assertThatThrownBy(() -> s.complete(key, owner, new byte[1001], TTL))
          .isInstanceOfSatisfying(
              OutcomeNotRecordedException.class, e -> assertThat(e.failsTheCall()).isFalse())
          .hasMessageContaining("1001 bytes")
          .hasMessageContaining("maxOutcomeBytes")
          .hasMessageContaining("max_payload")
          .hasMessageNotContaining("\"k\"");
      assertThat(s.read(key).orElseThrow().isCompleted()).as("nothing was written").isFalse();
    }
  }

  @Test
  void anEntryThatIsNotARecordFailsItsKeyUntilDeleted() throws Exception {
    String bucket = bucket();
    try (NatsIdempotencyStore s = store(bucket)) {
      RecordKey key = RecordKey.of("foreign", "k");
      connection.keyValue(bucket).put(KeyNames.recordKey(key), "not a record".getBytes());

      assertThatThrownBy(() -> s.claim(key, owner(), null, LEASE))
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining("not a record of this store's format");
      KeyValueEntry still = connection.keyValue(bucket).get(KeyNames.recordKey(key));
      assertThat(new String(still.getValue())).as("left as it is").isEqualTo("not a record");

      assertThat(s.delete(key)).isTrue();
      assertThat(s.claim(key, owner(), null, LEASE).isAcquired()).isTrue();
    }
  }

  @Test
  void aRefusedClaimByAnotherCallerWakesNoWaiterAndAReleaseDoes() throws Exception {
    try (NatsIdempotencyStore s = store(bucket())) {
      RecordKey key = RecordKey.of("wait", "k");
      String holder = owner();
      s.claim(key, holder, null, LEASE);
      CompletableFuture<Void> waiting =
          s.awaitChangeAsync(key, Duration.ofSeconds(20)).toCompletableFuture();
      // the waiter has read the record once a read sent after it has been answered
      s.read(key);

      ClaimResult refused = s.claim(key, owner(), null, LEASE);
      assertThat(refused.isAcquired()).isFalse();
      s.renew(key, holder, LEASE);
      assertThat(s.read(key)).isPresent();
      Thread.sleep(300); // the refused claim's message has surely reached the waiter by now
      assertThat(waiting)
          .as("a waiter woken by a claim the server refused would claim again, and wake others")
          .isNotDone();

      assertThat(s.release(key, holder)).isTrue();
      waiting.get(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void closingTheStoreEndsTheWaitsInProgress() throws Exception {
    NatsIdempotencyStore s = store(bucket());
    RecordKey key = RecordKey.of("close", "k");
    s.claim(key, owner(), null, LEASE);
    CompletableFuture<Void> waiting =
        s.awaitChangeAsync(key, Duration.ofSeconds(60)).toCompletableFuture();
    s.read(key);

    s.close();

    waiting.get(5, TimeUnit.SECONDS);
  }
}
