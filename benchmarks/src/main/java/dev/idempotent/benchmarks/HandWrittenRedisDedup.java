package dev.idempotent.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * The hand-written Redis de-duplication a message listener could do itself, through the same {@link
 * RedissonClient} as the store and with the floor's scripts ({@link RedisFloor#CLAIM}, {@link
 * RedisFloor#COMPLETE}): a claim is one {@code EVALSHA} running {@code SET key owner NX PX lease}
 * (and, when the key exists, {@code GET}); the body runs; the completion is one {@code EVALSHA}
 * that {@code GET}s the key and, while it still holds the owner, {@code SET}s a short completed
 * marker with {@code PX ttl}. A key whose value is that marker is a duplicate: the body does not
 * run. A key held by another owner is in progress: the delivery fails, so that the container hands
 * it back. A body that throws releases the claim (an owner-checked {@code DEL}) and the exception
 * goes on.
 */
final class HandWrittenRedisDedup {
  static final String RELEASE =
      """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        return redis.call('DEL', KEYS[1])
      end
      return 0
      """;

  /** The value of a completed key; an owner's value starts with {@code o:}. */
  private static final byte[] DONE = "done".getBytes(StandardCharsets.US_ASCII);

  /** What the listener's body does; may throw. */
  @FunctionalInterface
  interface Body {
    void run() throws Exception;
  }

  private final RScript script;
  private final String prefix;
  private final String claimSha;
  private final String completeSha;
  private final String releaseSha;
  private final byte[] leaseMillis;
  private final byte[] ttlMillis;

  HandWrittenRedisDedup(RedissonClient redisson, String prefix, Duration lease, Duration ttl) {
    this.script = redisson.getScript(ByteArrayCodec.INSTANCE);
    this.prefix = prefix;
    this.claimSha = script.scriptLoad(RedisFloor.CLAIM);
    this.completeSha = script.scriptLoad(RedisFloor.COMPLETE);
    this.releaseSha = script.scriptLoad(RELEASE);
    this.leaseMillis = ascii(Long.toString(lease.toMillis()));
    this.ttlMillis = ascii(Long.toString(ttl.toMillis()));
  }

  /**
   * Runs {@code body} once per {@code key}.
   *
   * @return true when the body ran, false for a duplicate of a completed key
   * @throws IllegalStateException when another delivery holds the key, or lost it before completing
   */
  boolean runOnce(String key, Body body) throws Exception {
    String name = prefix + key;
    byte[] owner = ascii("o:" + UUID.randomUUID());
    byte[] existing =
        script.evalSha(
            name,
            RScript.Mode.READ_WRITE,
            claimSha,
            RScript.ReturnType.VALUE,
            List.of(name),
            owner,
            leaseMillis);
    if (existing != null) {
      if (existing.length > 0 && existing[0] == 'o') {
        throw new IllegalStateException("message " + key + " is in progress in another delivery");
      }
      return false;
    }
    try {
      body.run();
    } catch (Exception | Error e) {
      script.evalSha(
          name,
          RScript.Mode.READ_WRITE,
          releaseSha,
          RScript.ReturnType.LONG,
          List.<Object>of(name),
          owner);
      throw e;
    }
    Long completed =
        script.evalSha(
            name,
            RScript.Mode.READ_WRITE,
            completeSha,
            RScript.ReturnType.LONG,
            List.of(name),
            owner,
            ttlMillis,
            DONE);
    if (completed != 1) {
      throw new IllegalStateException("lost the claim of message " + key + " before completing");
    }
    return true;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
