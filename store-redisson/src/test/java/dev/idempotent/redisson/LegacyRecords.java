package dev.idempotent.redisson;

import dev.idempotent.redisson.internal.RecordLayout;
import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * Writes records exactly as the earlier layout did: the claim and complete scripts of that version,
 * verbatim, on the hash named {@link RecordLayout#legacyName}.
 */
final class LegacyRecords {
  private static final String CLAIM =
      """
      local h = redis.call('HMGET', KEYS[1], 's', 'o', 'f', 'r')
      if h[1] == 'P' and h[2] == ARGV[1] then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return {1}
      end
      if h[1] then
        return {0, h[1], h[2], h[3], h[4], redis.call('PTTL', KEYS[1])}
      end
      redis.call('DEL', KEYS[1])
      if ARGV[3] then
        redis.call('HSET', KEYS[1], 's', 'P', 'o', ARGV[1], 'f', ARGV[3])
      else
        redis.call('HSET', KEYS[1], 's', 'P', 'o', ARGV[1])
      end
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      return {1}
      """;
  private static final String COMPLETE =
      """
      local h = redis.call('HMGET', KEYS[1], 's', 'o')
      if h[2] ~= ARGV[1] then
        return 0
      end
      if h[1] == 'C' and redis.call('HGET', KEYS[1], 'r') == ARGV[3] then
        return 1
      end
      if h[1] ~= 'P' then
        return 0
      end
      redis.call('HSET', KEYS[1], 's', 'C', 'r', ARGV[3])
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      redis.call('PUBLISH', ARGV[4], 'C')
      return 1
      """;

  private final RScript script;
  private final RecordLayout layout;

  LegacyRecords(RedissonClient client, String prefix) {
    this.script = client.getScript(ByteArrayCodec.INSTANCE);
    this.layout = new RecordLayout(prefix);
  }

  /** Claims {@code key} in the earlier layout; true when claimed. */
  boolean claim(RecordKey key, String owner, String fingerprint, Duration lease) {
    String name = layout.legacyName(key);
    List<Object> reply =
        fingerprint == null
            ? script.eval(
                name,
                RScript.Mode.READ_WRITE,
                CLAIM,
                RScript.ReturnType.LIST,
                List.of(name),
                bytes(owner),
                millis(lease))
            : script.eval(
                name,
                RScript.Mode.READ_WRITE,
                CLAIM,
                RScript.ReturnType.LIST,
                List.of(name),
                bytes(owner),
                millis(lease),
                bytes(fingerprint));
    return ((Number) reply.get(0)).longValue() == 1;
  }

  /** Completes {@code key} in the earlier layout; true when completed. */
  boolean complete(RecordKey key, String owner, byte[] outcome, Duration ttl) {
    String name = layout.legacyName(key);
    Long done =
        script.eval(
            name,
            RScript.Mode.READ_WRITE,
            COMPLETE,
            RScript.ReturnType.LONG,
            List.of(name),
            bytes(owner),
            millis(ttl),
            outcome,
            bytes(name + "#changed"));
    return done == 1;
  }

  /** A claimed and completed record in the earlier layout. */
  void completed(RecordKey key, String owner, String fingerprint, byte[] outcome, Duration ttl) {
    if (!claim(key, owner, fingerprint, Duration.ofMinutes(1))
        || !complete(key, owner, outcome, ttl)) {
      throw new IllegalStateException("could not write the legacy record of " + key);
    }
  }

  String name(RecordKey key) {
    return layout.legacyName(key);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] millis(Duration d) {
    return bytes(Long.toString(d.toMillis()));
  }
}
