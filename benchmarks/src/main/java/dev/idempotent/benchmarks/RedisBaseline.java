package dev.idempotent.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * The hand-written Redis baseline: the minimum an application would send, through the same {@link
 * RedissonClient} as the store. A claim is one {@code EVALSHA} (a set-if-absent of the owner field
 * in a hash, with a lease expiry), a completion one owner-checked {@code EVALSHA}, a replay one
 * {@code EVALSHA} reading the outcome field.
 */
final class RedisBaseline {
  static final String KEY_PREFIX = "bench:base:";

  static final String CLAIM =
      """
      if redis.call('HSETNX', KEYS[1], 'o', ARGV[1]) == 1 then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return 1
      end
      return 0
      """;
  static final String COMPLETE =
      """
      if redis.call('HGET', KEYS[1], 'o') == ARGV[1] then
        redis.call('HSET', KEYS[1], 'r', ARGV[3])
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return 1
      end
      return 0
      """;
  static final String READ =
      """
      return redis.call('HGET', KEYS[1], 'r')
      """;

  private final RScript script;
  private final String claimSha;
  private final String completeSha;
  private final String readSha;
  private final byte[] leaseMillis;
  private final byte[] ttlMillis;

  RedisBaseline(RedissonClient redisson, Duration lease, Duration ttl) {
    this.script = redisson.getScript(ByteArrayCodec.INSTANCE);
    this.claimSha = script.scriptLoad(CLAIM);
    this.completeSha = script.scriptLoad(COMPLETE);
    this.readSha = script.scriptLoad(READ);
    this.leaseMillis = ascii(Long.toString(lease.toMillis()));
    this.ttlMillis = ascii(Long.toString(ttl.toMillis()));
  }

  /**
   * Claims {@code key} for {@code owner}, runs the body, records the outcome; a taken key is
   * replayed.
   */
  Receipt submit(String key, String owner, long amountCents) {
    String name = KEY_PREFIX + key;
    byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
    Long claimed =
        script.evalSha(
            name,
            RScript.Mode.READ_WRITE,
            claimSha,
            RScript.ReturnType.LONG,
            List.of(name),
            ownerBytes,
            leaseMillis);
    if (claimed != 1) {
      return replay(key);
    }
    Receipt receipt = Receipt.issue(key, amountCents);
    byte[] outcome = BaselineOutcomes.encode(receipt);
    Long completed =
        script.evalSha(
            name,
            RScript.Mode.READ_WRITE,
            completeSha,
            RScript.ReturnType.LONG,
            List.of(name),
            ownerBytes,
            ttlMillis,
            outcome);
    if (completed != 1) {
      throw new IllegalStateException("the baseline lost its claim of " + key);
    }
    return receipt;
  }

  /** The recorded receipt of a completed key. */
  Receipt replay(String key) {
    String name = KEY_PREFIX + key;
    byte[] outcome =
        script.evalSha(
            name, RScript.Mode.READ_ONLY, readSha, RScript.ReturnType.VALUE, List.of(name));
    if (outcome == null) {
      throw new IllegalStateException("no completed record of " + key);
    }
    return BaselineOutcomes.decode(outcome);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
