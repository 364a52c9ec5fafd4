package dev.idempotent.redisson.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * One server-side step of the store: a Lua script over exactly one record hash ({@code KEYS[1]}), run with
 * {@code EVALSHA}. Hash fields: {@code s} status ({@code P} in progress, {@code C} completed), {@code o} owner
 * token, {@code f} fingerprint (absent when none), {@code r} outcome bytes. Redis expires the hash itself:
 * {@code PEXPIRE} is the lease while in progress and the ttl once completed, and a record's remaining time is
 * read with {@code PTTL} inside the script, so no client clock is involved.
 *
 * <p>Record replies are {@code {status, owner, fingerprint|nil, outcome|nil, pttl}}.
 *
 * <p>Complete and release answer a resent command truthfully: Redisson sends a command again when its reply
 * did not arrive in time, and the executor repeats a write that failed on an interrupted thread, so the first
 * attempt may have been applied already. A completed record keeps its owner token, and a repeated complete by
 * that owner with the same outcome answers 1; a release leaves the owner token in a short-lived set of released
 * owners ({@code KEYS[2]}, same hash tag), and a repeated release by that owner answers 1.
 */
public enum RecordScript {
  /**
   * ARGV: owner, lease ms, [fingerprint]. Returns {@code {1}} when claimed, else {@code {0, record...}}. A claim
   * by the owner that already holds the key (a client retry of the same call) renews it and counts as claimed.
   */
  CLAIM("""
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
      """),

  /**
   * ARGV: owner, ttl ms, outcome, channel. Returns 1 when completed (or already completed by this owner with this
   * outcome), 0 when fenced.
   */
  COMPLETE("""
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
      """),

  /**
   * KEYS: record, released owners. ARGV: owner, channel, ms to remember the release. Returns 1 when deleted (or
   * already released by this owner), 0 when fenced.
   */
  RELEASE("""
      local h = redis.call('HMGET', KEYS[1], 's', 'o')
      if h[1] ~= 'P' or h[2] ~= ARGV[1] then
        return redis.call('SISMEMBER', KEYS[2], ARGV[1])
      end
      redis.call('DEL', KEYS[1])
      redis.call('SADD', KEYS[2], ARGV[1])
      redis.call('PEXPIRE', KEYS[2], ARGV[3])
      redis.call('PUBLISH', ARGV[2], 'R')
      return 1
      """),

  /** ARGV: owner, lease ms. Returns 1 when renewed, 0 when fenced. */
  RENEW("""
      local h = redis.call('HMGET', KEYS[1], 's', 'o')
      if h[1] ~= 'P' or h[2] ~= ARGV[1] then
        return 0
      end
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      return 1
      """),

  /**
   * ARGV: channel, store-wide deletes channel, announcement. The administrative delete: removes the record whatever
   * its status and owner, and announces it on the channel as a release does, so that waiters claim again, and on
   * the store-wide channel, so that near caches in every instance drop it (also when the record was already gone:
   * a cache may still hold an outcome that a failover lost). Returns 1 when a record was there, else 0. The set of
   * released owners is left alone: it only answers resent releases, and a deleted holder's release finds neither
   * its claim nor its token there, so it is fenced.
   */
  DELETE("""
      redis.call('PUBLISH', ARGV[2], ARGV[3])
      if redis.call('DEL', KEYS[1]) == 0 then
        return 0
      end
      redis.call('PUBLISH', ARGV[1], 'D')
      return 1
      """),

  /** No ARGV. Returns {@code {}} when there is no live record, else the record. Never writes. */
  READ("""
      local h = redis.call('HMGET', KEYS[1], 's', 'o', 'f', 'r')
      if not h[1] then
        return {}
      end
      return {h[1], h[2], h[3], h[4], redis.call('PTTL', KEYS[1])}
      """),

  /** No ARGV. Returns {@code {status|nil, pttl}} without the outcome bytes. Never writes. */
  PEEK("""
      return {redis.call('HGET', KEYS[1], 's'), redis.call('PTTL', KEYS[1])}
      """);

  private final String source;
  private final String sha;

  RecordScript(String source) {
    this.source = source;
    this.sha = sha1Hex(source);
  }

  /** The Lua source, as sent with {@code SCRIPT LOAD}. */
  public String source() {
    return source;
  }

  /** The SHA-1 digest by which Redis knows the loaded script (the same as {@code SCRIPT LOAD} answers). */
  public String sha() {
    return sha;
  }

  /** Whether the script changes the record (and so is followed by {@code WAIT} when replica acks are asked). */
  public boolean writes() {
    return this != READ && this != PEEK;
  }

  private static String sha1Hex(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
      StringBuilder sb = new StringBuilder(40);
      for (byte b : d) {
        sb.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
      }
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by every Java platform", e);
    }
  }
}
