package dev.idempotent.benchmarks;

import dev.idempotent.internal.Fingerprints;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RBucket;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * The hand-written Redis floor: the least an application could send for an idempotent call, through
 * the same {@link RedissonClient} as the store, with string values. A claim is one {@code EVALSHA}
 * that runs {@code SET key owner NX PX lease} and, when the key exists, {@code GET}s it; a
 * completion one {@code EVALSHA} that {@code GET}s the key and, while it still holds the owner,
 * {@code SET}s the outcome with {@code PX ttl}; a replay one {@code EVALSHA} that {@code GET}s it,
 * or a plain {@code GET}.
 *
 * <p>The lean floor keeps no fingerprint and uses no codec: its outcome is the receipt's fields as
 * text. With {@code clientWork}, it does the client work of the woven call of {@link
 * OrderService#submitChecked} on top: the payload fingerprint of the arguments ({@link
 * Fingerprints#ofArguments}, as {@code payload = "*"} computes it), sent with the claim and kept
 * before the outcome, compared on a replay; and the outcome encoded as the library's default codec
 * encodes it ({@link BaselineOutcomes}).
 */
final class RedisFloor {
  static final String KEY_PREFIX = "bench:floor:";

  static final String CLAIM =
      """
      if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
        return false
      end
      return redis.call('GET', KEYS[1])
      """;
  static final String COMPLETE =
      """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[2])
        return 1
      end
      return 0
      """;
  static final String READ =
      """
      return redis.call('GET', KEYS[1])
      """;

  /** The parameter names of {@link OrderService#submitChecked}, as the woven call digests them. */
  private static final String[] PARAMETERS = {"orderId", "amountCents"};

  /** Characters of a payload fingerprint. */
  private static final int FINGERPRINT_LENGTH = Fingerprints.LENGTH;

  private final RedissonClient redisson;
  private final RScript script;
  private final String prefix;
  private final boolean clientWork;
  private final String claimSha;
  private final String completeSha;
  private final String readSha;
  private final byte[] leaseMillis;
  private final byte[] ttlMillis;

  RedisFloor(RedissonClient redisson, Duration lease, Duration ttl, boolean clientWork) {
    this.redisson = redisson;
    this.script = redisson.getScript(ByteArrayCodec.INSTANCE);
    this.prefix = KEY_PREFIX + (clientWork ? "work:" : "lean:");
    this.clientWork = clientWork;
    this.claimSha = script.scriptLoad(CLAIM);
    this.completeSha = script.scriptLoad(COMPLETE);
    this.readSha = script.scriptLoad(READ);
    this.leaseMillis = ascii(Long.toString(lease.toMillis()));
    this.ttlMillis = ascii(Long.toString(ttl.toMillis()));
  }

  /**
   * Claims {@code key} for {@code owner}, runs the body, records the outcome; a taken key is
   * replayed from the value the claim read.
   */
  Receipt submit(String key, String owner, long amountCents) {
    String fingerprint = clientWork ? fingerprint(key, amountCents) : null;
    String name = prefix + key;
    byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
    byte[] existing =
        script.evalSha(
            name,
            RScript.Mode.READ_WRITE,
            claimSha,
            RScript.ReturnType.VALUE,
            List.of(name),
            ownerBytes,
            leaseMillis);
    if (existing != null) {
      return decode(existing, fingerprint, key);
    }
    Receipt receipt = Receipt.issue(key, amountCents);
    Long completed =
        script.evalSha(
            name,
            RScript.Mode.READ_WRITE,
            completeSha,
            RScript.ReturnType.LONG,
            List.of(name),
            ownerBytes,
            ttlMillis,
            encode(receipt, fingerprint));
    if (completed != 1) {
      throw new IllegalStateException("the floor lost its claim of " + key);
    }
    return receipt;
  }

  /**
   * {@link #submit} on Redisson's asynchronous API: the claim's {@code EVALSHA}, then the body and
   * the completion's {@code EVALSHA} on the thread that completes the claim, no thread parked.
   */
  CompletionStage<Receipt> submitAsync(String key, String owner, long amountCents) {
    String fingerprint = clientWork ? fingerprint(key, amountCents) : null;
    String name = prefix + key;
    byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
    RFuture<byte[]> claim =
        script.evalShaAsync(
            name,
            RScript.Mode.READ_WRITE,
            claimSha,
            RScript.ReturnType.VALUE,
            List.of(name),
            ownerBytes,
            leaseMillis);
    return claim.thenCompose(
        existing -> {
          if (existing != null) {
            return CompletableFuture.completedFuture(decode(existing, fingerprint, key));
          }
          Receipt receipt = Receipt.issue(key, amountCents);
          RFuture<Long> completion =
              script.evalShaAsync(
                  name,
                  RScript.Mode.READ_WRITE,
                  completeSha,
                  RScript.ReturnType.LONG,
                  List.of(name),
                  ownerBytes,
                  ttlMillis,
                  encode(receipt, fingerprint));
          return completion.thenApply(
              completed -> {
                if (completed != 1) {
                  throw new IllegalStateException("the floor lost its claim of " + key);
                }
                return receipt;
              });
        });
  }

  /** {@link #replay} on Redisson's asynchronous API: one reading {@code EVALSHA}. */
  CompletionStage<Receipt> replayAsync(String key, long amountCents) {
    String fingerprint = clientWork ? fingerprint(key, amountCents) : null;
    String name = prefix + key;
    RFuture<byte[]> read =
        script.evalShaAsync(
            name, RScript.Mode.READ_ONLY, readSha, RScript.ReturnType.VALUE, List.of(name));
    return read.thenApply(value -> decode(value, fingerprint, key));
  }

  /** The recorded receipt of a completed key: one reading {@code EVALSHA}. */
  Receipt replay(String key, long amountCents) {
    String fingerprint = clientWork ? fingerprint(key, amountCents) : null;
    String name = prefix + key;
    byte[] value =
        script.evalSha(
            name, RScript.Mode.READ_ONLY, readSha, RScript.ReturnType.VALUE, List.of(name));
    return decode(value, fingerprint, key);
  }

  /** The recorded receipt of a completed key: one plain {@code GET}. */
  Receipt replayGet(String key, long amountCents) {
    String fingerprint = clientWork ? fingerprint(key, amountCents) : null;
    RBucket<byte[]> bucket = redisson.getBucket(prefix + key, ByteArrayCodec.INSTANCE);
    return decode(bucket.get(), fingerprint, key);
  }

  private static String fingerprint(String orderId, long amountCents) {
    return Fingerprints.ofArguments(new Object[] {orderId, amountCents}, PARAMETERS);
  }

  private byte[] encode(Receipt receipt, String fingerprint) {
    if (!clientWork) {
      return ascii(receipt.amountCents() + ":" + receipt.currency() + ":" + receipt.orderId());
    }
    byte[] outcome = BaselineOutcomes.encode(receipt);
    byte[] value = Arrays.copyOf(ascii(fingerprint), FINGERPRINT_LENGTH + outcome.length);
    System.arraycopy(outcome, 0, value, FINGERPRINT_LENGTH, outcome.length);
    return value;
  }

  private Receipt decode(byte[] value, String fingerprint, String key) {
    if (value == null) {
      throw new IllegalStateException("no completed record of " + key);
    }
    if (!clientWork) {
      String text = new String(value, StandardCharsets.UTF_8);
      int first = text.indexOf(':');
      int second = text.indexOf(':', first + 1);
      if (first < 0 || second < 0) {
        throw new IllegalStateException("the record of " + key + " is in progress");
      }
      return new Receipt(
          text.substring(second + 1),
          Long.parseLong(text, 0, first, 10),
          text.substring(first + 1, second));
    }
    if (value.length < FINGERPRINT_LENGTH
        || !fingerprint.equals(
            new String(value, 0, FINGERPRINT_LENGTH, StandardCharsets.US_ASCII))) {
      throw new IllegalStateException("the record of " + key + " has another payload");
    }
    return BaselineOutcomes.decode(Arrays.copyOfRange(value, FINGERPRINT_LENGTH, value.length));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
