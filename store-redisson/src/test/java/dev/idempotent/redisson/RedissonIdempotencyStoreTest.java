package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.redisson.internal.RecordFormat;
import dev.idempotent.redisson.internal.RecordNames;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
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
 * What the contract kit does not see: the records in Redis byte for byte, values that are not
 * records, names, builder checks, waiting details, replica acks.
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

  /**
   * A claim and a completed record are strings of format version 1, byte for byte as
   * docs/stores/redis.md describes them, expiring on the server; nothing else is written, not even
   * for the scope.
   */
  @Test
  void recordsAreStringsOfFormatVersionOneByteForByte() {
    String prefix = "idem-unit-" + UUID.randomUUID() + ":";
    RedissonIdempotencyStore store =
        RedissonIdempotencyStore.builder(client).keyPrefix(prefix).build();
    RecordKey key = RecordKey.of(scope, "order {42}");
    byte[] outcome = {0, (byte) 0xFF, 13, 10, 0, 'x'};
    store.claim(key, "owner-1", "fp-1", Duration.ofSeconds(20));
    String name = store.names().recordName(key);
    String digest =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(ByteBuffer.allocate(8).putLong(key.scopeId()).array());
    assertThat(digest).hasSize(11);
    assertThat(name)
        .matches("\\Q" + prefix + "\\E\\{[0-9A-Za-z]{3}}\\Q" + digest + ":order {42}\\E");
    assertThat(client.getKeys().remainTimeToLive(name)).isBetween(1L, 20_000L);
    assertThat(value(name))
        .as("format byte, waiters flag, owner length and owner, fingerprint length and fingerprint")
        .containsExactly(bytes(0x11, 0, 7, "owner-1", 0, 4, "fp-1"));

    store.complete(key, "owner-1", outcome, Duration.ofHours(1));

    assertThat(client.getKeys().getType(name)).isEqualTo(RType.OBJECT);
    int owner = crc16Xmodem("owner-1".getBytes(StandardCharsets.UTF_8));
    assertThat(value(name))
        .as("format byte, owner digest, fingerprint length and fingerprint, outcome")
        .containsExactly(bytes(0x13, owner >> 8, owner & 0xFF, 0, 4, "fp-1", outcome));
    assertThat(client.getKeys().remainTimeToLive(name)).isBetween(3_500_000L, 3_600_000L);
    assertThat(store.read(key).orElseThrow().outcome()).containsExactly(outcome);

    RecordKey plain = RecordKey.of(scope, "no fingerprint");
    store.claim(plain, "owner-2", null, LONG);
    String plainName = store.names().recordName(plain);
    assertThat(value(plainName))
        .as("0xFFFF: no fingerprint")
        .containsExactly(bytes(0x11, 0, 7, "owner-2", 0xFF, 0xFF));
    store.complete(plain, "owner-2", new byte[] {7}, LONG);
    int owner2 = crc16Xmodem("owner-2".getBytes(StandardCharsets.UTF_8));
    assertThat(value(plainName))
        .as("format byte 0x12: no fingerprint")
        .containsExactly(bytes(0x12, owner2 >> 8, owner2 & 0xFF, 7));
    assertThat(store.read(plain).orElseThrow().fingerprint()).isNull();

    RecordKey empty = RecordKey.of(scope, "empty fingerprint");
    store.claim(empty, "owner-3", "", LONG);
    assertThat(store.read(empty).orElseThrow().fingerprint()).as("kept apart from none").isEmpty();
    store.complete(empty, "owner-3", new byte[0], LONG);
    assertThat(store.read(empty).orElseThrow().fingerprint()).isEmpty();

    assertThat(client.getKeys().getKeysStreamByPattern(prefix + "*"))
        .as("the records, and nothing kept for the scope")
        .containsExactlyInAnyOrder(name, plainName, store.names().recordName(empty));
    client.getKeys().deleteByPattern(prefix + "*");
  }

  /** CRC16/XMODEM, bit by bit: polynomial 0x1021, initial value 0. */
  private static int crc16Xmodem(byte[] bytes) {
    int crc = 0;
    for (byte b : bytes) {
      crc ^= (b & 0xFF) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      crc &= 0xFFFF;
    }
    return crc;
  }

  @Test
  void theOwnerDigestIsCrc16Xmodem() {
    assertThat(crc16Xmodem("123456789".getBytes(StandardCharsets.US_ASCII)))
        .as("the check value of CRC16/XMODEM")
        .isEqualTo(0x31C3);
    for (String token : List.of("123456789", "owner-1", "a1b2c3:4711", "ünï-😀")) {
      assertThat(RecordFormat.ownerDigest(token))
          .as(token)
          .isEqualTo(crc16Xmodem(token.getBytes(StandardCharsets.UTF_8)));
    }
  }

  /** The bytes of ints and chars (each one byte), strings (UTF-8) and byte arrays, in order. */
  static byte[] bytes(Object... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Object p : parts) {
      if (p instanceof Integer i) {
        out.write(i);
      } else if (p instanceof Character c) {
        out.write(c);
      } else if (p instanceof String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
      } else {
        out.writeBytes((byte[]) p);
      }
    }
    return out.toByteArray();
  }

  private static byte[] value(String name) {
    return bucket(name).get();
  }

  /**
   * Values under a record's name that are not records of this store: another program's, a record of
   * another format version, a truncated write, or someone's hand. Every call of the key fails with
   * an outcome exception naming what is there (never a Lua error, never a record read out of
   * garbage), the value stays as it was (not even its expiry changes), a waiter returns at once,
   * and not even a fail-open call runs the method over it. Some of the strings hold the caller's
   * own owner part, so that complete, release, renew and the waiter's flag are refused by the
   * format check, not by a foreign owner.
   */
  @Test
  void aValueThatIsNotARecordFailsEveryCallAsUnreadableAndIsLeftAlone() throws Exception {
    RedissonIdempotencyStore store = store();
    Map<String, Consumer<String>> plants = new LinkedHashMap<>();
    Map<String, String> described = new LinkedHashMap<>();
    Map<String, byte[]> strings = new LinkedHashMap<>();
    strings.put("empty", new byte[0]);
    strings.put("text", bytes("hello"));
    strings.put("format byte only", bytes(0x11));
    strings.put("claim header only", bytes(0x11, 0, 7));
    strings.put("claim without fingerprint length", bytes(0x11, 0, 7, "owner-1"));
    strings.put("claim, fingerprint cut short", bytes(0x11, 0, 7, "owner-1", 0, 5, "x"));
    strings.put("claim, bytes after it", bytes(0x11, 0, 7, "owner-1", 0xFF, 0xFF, "x"));
    strings.put("claim, flag 2", bytes(0x11, 2, 7, "owner-1", 0xFF, 0xFF));
    strings.put("claim, no owner", bytes(0x11, 0, 0, 0xFF, 0xFF, 0));
    strings.put("completed, too short", bytes(0x12, 0));
    strings.put("completed, fingerprint cut short", bytes(0x13, 0, 0, 0, 9, "x"));
    strings.put("unknown kind", bytes(0x14, 0, 0, 7));
    strings.put("version 2", bytes(0x22, 0, 0, 7));
    strings.put("version 2 claim", bytes(0x21, 0, 7, "owner-1", 0xFF, 0xFF));
    strings.put("version 0 claim", bytes(0x01, 0, 7, "owner-1", 0xFF, 0xFF));
    for (Map.Entry<String, byte[]> s : strings.entrySet()) {
      byte[] v = s.getValue();
      plants.put(s.getKey(), name -> bucket(name).set(v, LONG));
      described.put(s.getKey(), "a string of " + v.length + " bytes");
    }
    described.put("empty", "an empty string");
    described.put(
        "text", "a string of 5 bytes whose first byte, 0x68, would name format version 6");
    described.put("version 2", "a string of 4 bytes whose first byte, 0x22, would name format");
    described.put("unknown kind", "a string of 4 bytes of format version 1 with the unknown kind");
    described.put("claim, no owner", "a string of 6 bytes that is not a well-formed claim");
    described.put(
        "completed, too short", "a string of 2 bytes that is not a well-formed completed");
    plants.put("list", name -> client.getList(name, StringCodec.INSTANCE).add("x"));
    described.put("list", "a list");
    plants.put("set", name -> client.getSet(name, StringCodec.INSTANCE).add("x"));
    described.put("set", "a set");
    plants.put("hash", name -> hash(name).putAll(Map.of("s", "P", "o", "owner-1")));
    described.put("hash", "a hash");
    plants.put("sorted set", name -> client.getScoredSortedSet(name).add(1, "x"));
    described.put("sorted set", "a zset");
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
      String name = store.names().recordName(key);
      plant.getValue().accept(name);
      client.getBucket(name).expire(LONG);
      String before = dump(name);
      String expected = "Redis holds " + described.get(label);

      assertThatThrownBy(() -> store.claim(key, "owner-1", null, LONG))
          .as(label)
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining(expected)
          .hasMessageContaining("under the name of this record")
          .hasMessageContaining("'idem-unit:'");
      assertThatThrownBy(() -> store.read(key))
          .as(label)
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining(expected);
      assertThat(store.complete(key, "owner-1", new byte[] {1}, LONG)).as(label).isFalse();
      assertThat(store.renew(key, "owner-1", Duration.ofHours(5))).as(label).isFalse();
      assertThat(store.release(key, "owner-1")).as(label).isFalse();
      long start = System.nanoTime();
      store.awaitChange(key, Duration.ofSeconds(10));
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("%s: a waiter finds no claim to wait for", label)
          .isLessThan(Duration.ofSeconds(3));
      assertThatThrownBy(() -> failOpen.call(policy, userKey, runs::incrementAndGet))
          .as(label)
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining(expected);
      assertThat(dump(name)).as(label + ": left as it was").isEqualTo(before);
      assertThat(client.getKeys().remainTimeToLive(name))
          .as(label + ": its expiry too")
          .isBetween(1L, LONG.toMillis());
      assertThat(store.delete(key)).as(label).isTrue();
    }
    assertThat(runs).as("not run over any of them, though fail-open").hasValue(0);
  }

  /**
   * A record of another format version (a newer version of the library writing under the same
   * prefix) is refused with a message naming its version byte, and left as it is.
   */
  @Test
  void aRecordOfAnUnknownFormatVersionIsRefusedNamingTheVersion() {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "from the future");
    store.claim(key, "owner-1", "fp", LONG);
    store.complete(key, "owner-1", new byte[] {4, 2}, LONG);
    String name = store.names().recordName(key);
    byte[] future = value(name);
    future[0] = 0x23;
    bucket(name).set(future, LONG);

    assertThatThrownBy(() -> store.claim(key, "owner-2", "fp", LONG))
        .isInstanceOf(IdempotencyOutcomeException.class)
        .hasMessageContaining("first byte, 0x23, would name format version 2")
        .hasMessageContaining("this store reads format version 1")
        .hasMessageContaining("another version of this library");
    assertThatThrownBy(() -> store.read(key)).isInstanceOf(IdempotencyOutcomeException.class);
    assertThat(store.complete(key, "owner-1", new byte[] {4, 2}, LONG))
        .as("not even the resent complete of its owner")
        .isFalse();
    assertThat(value(name)).containsExactly(future);

    future[0] = 0x13;
    bucket(name).set(future, LONG);
    assertThat(store.read(key).orElseThrow().outcome()).as("version 1 again").containsExactly(4, 2);
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
          case ZSET -> client.getScoredSortedSet(name).readAll();
          case MAP -> hash(name).readAllMap();
          default -> "?";
        };
    return type + " " + content;
  }

  @Test
  void recordNamesAreUnambiguousAndTaggedByDigest() {
    RecordNames names = new RecordNames("p:");
    String left = names.recordName(RecordKey.of("a:b", "c"));
    String right = names.recordName(RecordKey.of("a", "b:c"));
    assertThat(left).isNotEqualTo(right);
    String braces = names.recordName(RecordKey.of("s{x}", "{y}"));
    assertThat(braces).matches("p:\\{[0-9A-Za-z]{3}}[0-9A-Za-z_-]{11}:\\{y}");
    assertThat(RecordNames.channelOf(braces)).isEqualTo(braces + "#changed");
    assertThat(names.recordName(RecordKey.of("s", "k1")).substring(0, 7))
        .as("different keys of one scope get different tags")
        .isNotEqualTo(names.recordName(RecordKey.of("s", "k2")).substring(0, 7));
    assertThat(names.deletesChannel()).isEqualTo("p:#deleted");
  }

  /**
   * A key {@code K#released} whose slot tag is {@code K}'s (1 in 16384 keys): the released-owners
   * set of {@code K} is not the record of {@code K#released}, so each key's claims and releases
   * leave the other's alone.
   */
  @Test
  void theReleasedOwnersOfAKeyAreNeverTheRecordOfAnotherKey() {
    RedissonIdempotencyStore store = store();
    RecordNames names = store.names();
    int taggedPrefix = names.prefix().length() + "{abc}".length();
    RecordKey key = null;
    for (int i = 0; key == null && i < 1_000_000; i++) {
      RecordKey candidate = RecordKey.of(scope, "k" + i);
      RecordKey suffixed = RecordKey.of(scope, candidate.key() + "#released");
      String tag = names.recordName(candidate).substring(0, taggedPrefix);
      if (names.recordName(suffixed).startsWith(tag)) {
        key = candidate;
      }
    }
    assertThat(key).as("a key whose #released twin has the same slot tag").isNotNull();
    RecordKey twin = RecordKey.of(scope, key.key() + "#released");
    assertThat(RecordNames.releasedOf(names.recordName(key)))
        .isNotEqualTo(names.recordName(twin))
        .startsWith(names.recordName(key).substring(0, taggedPrefix));

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
  void aFingerprintLongerThanARecordKeepsIsRefusedAtClaim() {
    RedissonIdempotencyStore store = store();
    assertThatThrownBy(() -> store.claim(RecordKey.of(scope, "k"), "o", "f".repeat(65_535), LONG))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("65535 bytes")
        .hasMessageContaining("65534");
    assertThat(store.claim(RecordKey.of(scope, "k"), "o", "f".repeat(65_534), LONG).isAcquired())
        .isTrue();
    assertThat(store.complete(RecordKey.of(scope, "k"), "o", new byte[] {1}, LONG)).isTrue();
    assertThat(store.read(RecordKey.of(scope, "k")).orElseThrow().fingerprint()).hasSize(65_534);
  }

  @Test
  void anOwnerTokenLongerThanAClaimKeepsIsRefused() {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "long owner");
    assertThatThrownBy(() -> store.claim(key, "o".repeat(256), null, LONG))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("256 bytes")
        .hasMessageContaining("at most 255");
    assertThatThrownBy(() -> store.complete(key, "", new byte[0], LONG))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ownerToken");
    String owner = "ö".repeat(127);
    assertThat(store.claim(key, owner, null, LONG).isAcquired()).isTrue();
    assertThat(store.read(key).orElseThrow().ownerToken()).isEqualTo(owner);
    assertThat(store.complete(key, owner, new byte[] {1}, LONG)).isTrue();
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
      assertThat(
              listenersWithin(
                  RecordNames.channelOf(store.names().recordName(key)), Duration.ofSeconds(5)))
          .as("listeners left on %s", key)
          .isZero();
    }
    assertThat(store.read(done).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
  }

  /** The listeners on {@code channel} once there are none, or when {@code within} has passed. */
  private int listenersWithin(String channel, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    int n = client.getShardedTopic(channel).countListeners();
    while (n > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
      n = client.getShardedTopic(channel).countListeners();
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
        String name = store.names().recordName(key);
        assertThat(replica.cli("--no-raw", "GETRANGE", name, "0", "0").trim())
            .as("the replica has the completed record (format byte 0x12)")
            .isEqualTo("\"\\x12\"");

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

        start = System.nanoTime();
        CompletableFuture<ClaimResult> claimed =
            unacknowledged
                .claimAsync(RecordKey.of(scope, "alone, async"), "o", null, LONG)
                .toCompletableFuture();
        assertThat(claimed).as("the non-blocking face waits for WAIT without blocking").isNotDone();
        assertThat(claimed.get(10, TimeUnit.SECONDS).isAcquired()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("the non-blocking face waited for the WAIT timeout too")
            .isGreaterThanOrEqualTo(Duration.ofMillis(250));
      } finally {
        own.shutdown();
      }
    }
  }
}
