package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.redisson.internal.RecordLayout;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RMap;
import org.redisson.api.RType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * What the contract kit does not see: the layout in Redis, builder checks, waiting details, replica
 * acks.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonIdempotencyStoreTest {
  private static final Duration LONG = Duration.ofMinutes(1);
  private static RedissonClient client;

  private final String scope = "unit-" + UUID.randomUUID();

  @BeforeAll
  static void connect() {
    client = RedisTestEnvironment.client(2, 0);
  }

  @AfterAll
  static void disconnect() {
    if (client != null) {
      client.shutdown();
    }
  }

  private RedissonIdempotencyStore store() {
    return RedissonIdempotencyStore.builder(client).keyPrefix("idem-unit:").build();
  }

  @Test
  void claimIsAHashAndCompletedRecordACompactStringWithRawOutcomeBytesAndServerSideExpiry() {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "order {42}");
    byte[] outcome = {0, (byte) 0xFF, 13, 10, 0, 'x'};
    store.claim(key, "owner-1", "fp-1", Duration.ofSeconds(20));
    String name = store.layout().recordName(key);
    assertThat(name)
        .startsWith("idem-unit:{")
        .endsWith("}" + RecordLayout.scopeDigest(scope) + ":order {42}");
    assertThat(client.getKeys().remainTimeToLive(name)).isBetween(1L, 20_000L);
    Map<String, String> claim =
        client.<String, String>getMap(name, StringCodec.INSTANCE).readAllMap();
    assertThat(claim)
        .containsExactlyInAnyOrderEntriesOf(Map.of("s", "P", "o", "owner-1", "f", "fp-1"));
    assertThat(
            client
                .<String, String>getMap("idem-unit:scopes", StringCodec.INSTANCE)
                .get(RecordLayout.scopeDigest(scope)))
        .as("the scope text, kept once under its digest")
        .isEqualTo(scope);

    store.complete(key, "owner-1", outcome, Duration.ofHours(1));

    assertThat(client.getKeys().getType(name)).isEqualTo(RType.OBJECT);
    byte[] value = client.<byte[]>getBucket(name, ByteArrayCodec.INSTANCE).get();
    byte[] owner = RecordLayout.ownerDigest("owner-1");
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.write('f');
    expected.writeBytes(owner);
    expected.write(0);
    expected.write(4);
    expected.writeBytes("fp-1".getBytes(StandardCharsets.US_ASCII));
    expected.writeBytes(outcome);
    assertThat(value)
        .as("format byte, owner digest, fingerprint length and text, outcome")
        .containsExactly(expected.toByteArray());
    assertThat(client.getKeys().remainTimeToLive(name)).isBetween(3_500_000L, 3_600_000L);
    assertThat(store.read(key).orElseThrow().outcome()).containsExactly(outcome);

    RecordKey plain = RecordKey.of(scope, "no fingerprint");
    store.claim(plain, "owner-2", null, LONG);
    store.complete(plain, "owner-2", new byte[] {7}, LONG);
    byte[] digest2 = RecordLayout.ownerDigest("owner-2");
    assertThat(
            client
                .<byte[]>getBucket(store.layout().recordName(plain), ByteArrayCodec.INSTANCE)
                .get())
        .containsExactly('c', digest2[0], digest2[1], 7);
  }

  /**
   * Values under a record's name that are not records of this store: another program's, a truncated
   * write, or someone's hand. Every call of the key fails with an outcome exception naming what is
   * there (never a Lua error, never a record read out of garbage), the value stays as it was, and
   * not even a fail-open call runs the method over it.
   */
  @Test
  void aValueThatIsNotARecordFailsEveryCallAsUnreadableAndIsLeftAlone() throws Exception {
    RedissonIdempotencyStore store = store();
    Map<String, Consumer<String>> plants = new LinkedHashMap<>();
    Map<String, String> described = new LinkedHashMap<>();
    byte[][] strings = {
      {},
      {'c'},
      {'c', 1},
      {'f'},
      {'f', 1, 2},
      {'f', 1, 2, 0},
      {'f', 1, 2, 0, 2, 'x'},
      {'z', 1, 2, 3}
    };
    for (byte[] v : strings) {
      String label = "string " + Arrays.toString(v);
      plants.put(label, name -> bucket(name).set(v, LONG));
      described.put(label, "a string of " + v.length + " bytes");
    }
    plants.put("list", name -> client.getList(name, StringCodec.INSTANCE).add("x"));
    described.put("list", "a list");
    plants.put("set", name -> client.getSet(name, StringCodec.INSTANCE).add("x"));
    described.put("set", "a set");
    plants.put("hash of other fields", name -> hash(name).put("x", "y"));
    plants.put("claim without owner", name -> hash(name).put("s", "P"));
    plants.put("unknown status", name -> hash(name).putAll(Map.of("s", "Q", "o", "owner-1")));
    plants.put("completed without outcome", name -> hash(name).putAll(Map.of("s", "C", "o", "o")));
    described.put("completed without outcome", "a completed hash without an outcome");
    for (String label : List.of("hash of other fields", "claim without owner", "unknown status")) {
      described.put(label, "a hash without a status and owner");
    }
    AtomicInteger runs = new AtomicInteger();
    Idempotency failOpen =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN)
                .build());
    IdempotencyPolicy policy = IdempotencyPolicy.builder(scope).resultType(Integer.class).build();

    for (Map.Entry<String, Consumer<String>> plant : plants.entrySet()) {
      String label = plant.getKey();
      String userKey = "planted " + label;
      RecordKey key = RecordKey.of(scope, userKey);
      String name = store.layout().recordName(key);
      plant.getValue().accept(name);
      String before = dump(name);
      String expected = "Redis holds " + described.get(label) + " under the name of this record";

      assertThatThrownBy(() -> store.claim(key, "owner-1", null, LONG))
          .as(label)
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining(expected)
          .hasMessageContaining("'idem-unit:'");
      assertThatThrownBy(() -> store.read(key))
          .as(label)
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining(expected);
      assertThat(store.complete(key, "owner-1", new byte[] {1}, LONG)).as(label).isFalse();
      assertThat(store.renew(key, "owner-1", LONG)).as(label).isFalse();
      assertThat(store.release(key, "owner-1")).as(label).isFalse();
      assertThatThrownBy(() -> failOpen.call(policy, userKey, runs::incrementAndGet))
          .as(label)
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining(expected);
      assertThat(dump(name)).as(label + ": left as it was").isEqualTo(before);
      assertThat(store.delete(key)).as(label).isTrue();
    }
    assertThat(runs).as("not run over any of them, though fail-open").hasValue(0);
  }

  private static RBucket<byte[]> bucket(String name) {
    return client.getBucket(name, ByteArrayCodec.INSTANCE);
  }

  private static RMap<String, String> hash(String name) {
    return client.getMap(name, StringCodec.INSTANCE);
  }

  /** The type and content of the Redis key {@code name}. */
  private static String dump(String name) {
    RType type = client.getKeys().getType(name);
    Object content =
        switch (type) {
          case OBJECT -> Arrays.toString(bucket(name).get());
          case LIST -> client.getList(name, StringCodec.INSTANCE).readAll();
          case SET -> client.getSet(name, StringCodec.INSTANCE).readAll();
          case MAP -> hash(name).readAllMap();
          default -> "?";
        };
    return type + " " + content;
  }

  @Test
  void recordNamesAreUnambiguousAndTaggedByDigest() {
    RecordLayout layout = new RecordLayout("p:");
    String left = layout.recordName(RecordKey.of("a:b", "c"));
    String right = layout.recordName(RecordKey.of("a", "b:c"));
    assertThat(left).isNotEqualTo(right);
    String braces = layout.recordName(RecordKey.of("s{x}", "{y}"));
    assertThat(braces).matches("p:\\{[0-9A-Za-z]{3}}[0-9A-Za-z_-]{8}:\\{y}");
    assertThat(layout.legacyName(RecordKey.of("s{x}", "{y}")))
        .matches("p:\\{[0-9a-f]{16}}4:s\\{x}:\\{y}");
    assertThat(layout.channelName(RecordKey.of("s{x}", "{y}"))).isEqualTo(braces + "#changed");
    assertThat(layout.recordName(RecordKey.of("s", "k1")).substring(0, 8))
        .as("different keys of one scope get different tags")
        .isNotEqualTo(layout.recordName(RecordKey.of("s", "k2")).substring(0, 8));
    assertThat(layout.scopesName()).isEqualTo("p:scopes");
  }

  /**
   * A key {@code K#released} whose slot tag is {@code K}'s (1 in 16384 keys): the released-owners
   * set of {@code K} is not the record of {@code K#released}, so each key's claims and releases
   * leave the other's alone.
   */
  @Test
  void theReleasedOwnersOfAKeyAreNeverTheRecordOfAnotherKey() {
    RedissonIdempotencyStore store = store();
    RecordLayout layout = store.layout();
    int taggedPrefix = layout.prefix().length() + "{abc}".length();
    RecordKey key = null;
    for (int i = 0; key == null && i < 1_000_000; i++) {
      RecordKey candidate = RecordKey.of(scope, "k" + i);
      RecordKey suffixed = RecordKey.of(scope, candidate.key() + "#released");
      String tag = layout.recordName(candidate).substring(0, taggedPrefix);
      if (layout.recordName(suffixed).startsWith(tag)) {
        key = candidate;
      }
    }
    assertThat(key).as("a key whose #released twin has the same slot tag").isNotNull();
    RecordKey twin = RecordKey.of(scope, key.key() + "#released");
    assertThat(RecordLayout.releasedOf(layout.recordName(key)))
        .isNotEqualTo(layout.recordName(twin))
        .startsWith(layout.recordName(key).substring(0, taggedPrefix));

    assertThat(store.claim(twin, "twin-owner", null, LONG).isAcquired()).isTrue();
    assertThat(store.claim(key, "owner-1", null, LONG).isAcquired()).isTrue();
    assertThat(store.release(key, "owner-1")).isTrue();
    assertThat(store.release(key, "owner-1")).as("a resent release").isTrue();
    assertThat(store.read(twin).orElseThrow().ownerToken()).isEqualTo("twin-owner");
    assertThat(store.complete(twin, "twin-owner", new byte[] {1}, LONG)).isTrue();
    assertThat(store.claim(key, "owner-2", null, LONG).isAcquired()).isTrue();
    assertThat(store.release(key, "owner-2")).isTrue();
    assertThat(store.read(twin).orElseThrow().outcome()).containsExactly(1);
  }

  @Test
  void aScopeWhoseDigestNamesAnotherScopeIsRefusedNamingBoth() {
    String prefix = "idem-unit-" + UUID.randomUUID() + ":";
    client
        .<String, String>getMap(prefix + "scopes", StringCodec.INSTANCE)
        .put(RecordLayout.scopeDigest(scope), "com.example.Other.method()");
    RedissonIdempotencyStore store =
        RedissonIdempotencyStore.builder(client).keyPrefix(prefix).build();
    try {
      assertThatThrownBy(() -> store.claim(RecordKey.of(scope, "k"), "o", null, LONG))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(scope)
          .hasMessageContaining("com.example.Other.method()")
          .hasMessageContaining("another scope name");
      assertThat(client.getKeys().countExists(store.layout().recordName(RecordKey.of(scope, "k"))))
          .isZero();
    } finally {
      client.getKeys().delete(prefix + "scopes");
    }
  }

  @Test
  void aFingerprintLongerThanACompletedRecordKeepsIsRefusedAtClaim() {
    RedissonIdempotencyStore store = store();
    assertThatThrownBy(() -> store.claim(RecordKey.of(scope, "k"), "o", "f".repeat(65_536), LONG))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("65536 bytes")
        .hasMessageContaining("65535");
    assertThat(store.claim(RecordKey.of(scope, "k"), "o", "f".repeat(65_535), LONG).isAcquired())
        .isTrue();
    assertThat(store.complete(RecordKey.of(scope, "k"), "o", new byte[] {1}, LONG)).isTrue();
    assertThat(store.read(RecordKey.of(scope, "k")).orElseThrow().fingerprint()).hasSize(65_535);
  }

  @Test
  void aRetriedClaimBySameOwnerKeepsTheClaim() {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "retry");
    assertThat(store.claim(key, "owner-1", null, Duration.ofSeconds(5)).isAcquired()).isTrue();
    assertThat(store.claim(key, "owner-1", null, Duration.ofSeconds(50)).isAcquired()).isTrue();
    assertThat(store.read(key).orElseThrow().expiresIn()).isGreaterThan(Duration.ofSeconds(10));
    assertThat(store.claim(key, "owner-2", null, LONG).existing().ownerToken())
        .isEqualTo("owner-1");
  }

  @Test
  void awaitChangeReturnsWhenTheHoldersLeaseEndsWithoutAMessage() throws InterruptedException {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "dead-holder");
    store.claim(key, "owner-1", null, Duration.ofMillis(400));
    long start = System.nanoTime();
    store.awaitChange(key, Duration.ofSeconds(10));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isLessThan(Duration.ofSeconds(3));
    assertThat(store.read(key)).isEmpty();
  }

  @Test
  void awaitChangeReturnsAtOnceWhenTheKeyAlreadyChangedAndLeavesNoListener()
      throws InterruptedException {
    RedissonIdempotencyStore store = store();
    RecordKey done = RecordKey.of(scope, "done");
    store.claim(done, "owner-1", null, LONG);
    store.complete(done, "owner-1", new byte[] {1}, LONG);
    RecordKey missing = RecordKey.of(scope, "missing");
    for (RecordKey key : new RecordKey[] {done, missing}) {
      long start = System.nanoTime();
      store.awaitChange(key, Duration.ofSeconds(10));
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("awaitChange on %s", key)
          .isLessThan(Duration.ofSeconds(2));
      // The listener is removed asynchronously (the waiter does not wait for the unsubscribe).
      assertThat(listenersWithin(store.layout().channelName(key), Duration.ofSeconds(5)))
          .as("listeners left on %s", key)
          .isZero();
    }
    assertThat(store.read(done).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
  }

  /** The listeners on {@code channel} once there are none, or when {@code within} has passed. */
  private int listenersWithin(String channel, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    int n = client.getTopic(channel).countListeners();
    while (n > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
      n = client.getTopic(channel).countListeners();
    }
    return n;
  }

  @Test
  void awaitChangeIsInterruptible() throws Exception {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "held");
    store.claim(key, "owner-1", null, LONG);
    Thread waiter =
        new Thread(
            () -> {
              try {
                store.awaitChange(key, Duration.ofSeconds(30));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    waiter.start();
    Thread.sleep(300);
    waiter.interrupt();
    waiter.join(5000);
    assertThat(waiter.isAlive()).isFalse();
  }

  @Test
  void builderRejectsBadValuesNamingThem() {
    RedissonIdempotencyStore.Builder b = RedissonIdempotencyStore.builder(client);
    assertThatThrownBy(() -> b.keyPrefix("a{b"))
        .hasMessageContaining("a{b")
        .hasMessageContaining("brace");
    assertThatThrownBy(() -> b.keyPrefix(null)).hasMessageContaining("\"\"");
    assertThatThrownBy(() -> b.syncReplicas(0, Duration.ofSeconds(1)))
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> b.syncReplicas(1, Duration.ZERO)).hasMessageContaining("PT0S");
    assertThatThrownBy(() -> b.build().claim(RecordKey.of(scope, "k"), "o", null, Duration.ZERO))
        .hasMessageContaining("lease");
    assertThatThrownBy(() -> RedissonIdempotencyStore.builder(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void syncReplicasWaitsForAReplicaAcknowledgement() throws Exception {
    try (RedisServerProcess master = RedisServerProcess.launch();
        RedisServerProcess replica = RedisServerProcess.launch()) {
      replica.cli("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!master.cli("INFO", "replication").contains("connected_slaves:1")
          || !replica.cli("INFO", "replication").contains("master_link_status:up")) {
        assertThat(System.nanoTime() - deadline).as("replica in sync within 20 s").isNegative();
        Thread.sleep(100);
      }
      Config config = new Config();
      config.useSingleServer().setAddress(master.url()).setConnectionMinimumIdleSize(1);
      RedissonClient own = Redisson.create(config);
      try {
        RedissonIdempotencyStore store =
            RedissonIdempotencyStore.builder(own).syncReplicas(1, Duration.ofSeconds(5)).build();
        RecordKey key = RecordKey.of(scope, "replicated");
        long start = System.nanoTime();
        assertThat(store.claim(key, "o", null, LONG).isAcquired()).isTrue();
        assertThat(store.complete(key, "o", new byte[] {4, 2}, LONG)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("two acknowledged writes took")
            .isLessThan(Duration.ofSeconds(4));
        String name = store.layout().recordName(key);
        assertThat(replica.cli("TYPE", name).trim())
            .as("the replica has the completed record")
            .isEqualTo("string");

        master.cli("SCRIPT", "FLUSH");
        assertThat(store.claim(RecordKey.of(scope, "after-flush"), "o", null, LONG).isAcquired())
            .as("NOSCRIPT inside a WAIT batch is healed too")
            .isTrue();

        replica.stop();
        RedissonIdempotencyStore unacknowledged =
            RedissonIdempotencyStore.builder(own).syncReplicas(1, Duration.ofMillis(300)).build();
        start = System.nanoTime();
        assertThat(unacknowledged.claim(RecordKey.of(scope, "alone"), "o", null, LONG).isAcquired())
            .as("a write nobody acknowledged still succeeds")
            .isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("it waited for the WAIT timeout")
            .isGreaterThanOrEqualTo(Duration.ofMillis(250));
      } finally {
        own.shutdown();
      }
    }
  }
}
