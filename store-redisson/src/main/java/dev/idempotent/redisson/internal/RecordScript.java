package dev.idempotent.redisson.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * One server-side step of the store: a Lua script over one record ({@code KEYS[1]}), run with
 * {@code EVALSHA}.
 *
 * <p>A record is one of two Redis types:
 *
 * <ul>
 *   <li>in progress: a hash with fields {@code s} status ({@code P}), {@code o} owner token and
 *       {@code f} fingerprint (absent when none). Claims are short-lived, so they keep the whole
 *       token for fencing.
 *   <li>completed: a string, as small as its content allows: one format byte ({@code c} without,
 *       {@code f} with a fingerprint), two bytes of SHA-256 of the owner token ({@link
 *       RecordLayout#ownerDigest}), for a fingerprinted record its length (two bytes, big-endian)
 *       and the fingerprint, then the outcome bytes as they are.
 * </ul>
 *
 * A record written by the earlier layout is a hash with {@code s} {@code P} or {@code C}, {@code
 * o}, {@code f} and {@code r} outcome bytes, under {@link RecordLayout#legacyName}; the scripts
 * that read a record take that name as an optional {@code KEYS[2]} (same cluster slot) and fall
 * back to it when the record is missing.
 *
 * <p>Redis expires the record itself: {@code PEXPIRE} is the lease while in progress and the ttl
 * once completed, and a record's remaining time is read with {@code PTTL} inside the script, so no
 * client clock is involved. Record replies are {@code {status, owner|nil, fingerprint|nil,
 * outcome|nil, pttl}}; the owner of a completed record is nil unless it was written by the earlier
 * layout. A value under a record's name that is neither layout (another Redis type, a string too
 * short for its format, a hash without a status and owner) is answered with a status that starts
 * with {@code ?} and describes it, and is never overwritten or deleted by a claim: the store
 * refuses the call rather than run it over what may be someone's record.
 *
 * <p>Complete and release answer a resent command truthfully: Redisson sends a command again when
 * its reply did not arrive in time, and the executor repeats a write that failed on an interrupted
 * thread, so the first attempt may have been applied already. A completed record keeps a digest of
 * its owner token, and a repeated complete by that owner with the same outcome answers 1 (another
 * owner whose outcome is byte for byte the stored one and whose token has the same 16-bit digest
 * would be answered 1 too, changing nothing); a release leaves the owner token in a short-lived set
 * of released owners ({@code KEYS[2]}, same hash tag), and a repeated release by that owner answers
 * 1.
 */
public enum RecordScript {
  /**
   * KEYS: record[, legacy record]. ARGV: owner, lease ms, [fingerprint]. Returns {@code {1}} when
   * claimed, else {@code {0, record...}}. A claim by the owner that already holds the key (a client
   * retry of the same call) renews it and counts as claimed.
   */
  CLAIM(
      Lua.RECORD
          + """
          local t = redis.call('TYPE', KEYS[1])['ok']
          if t == 'hash' then
            local h = redis.call('HMGET', KEYS[1], 's', 'o')
            if h[1] == 'P' and h[2] == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return {1}
            end
          end
          local r = record(KEYS[1], t)
          if not r and KEYS[2] then
            r = record(KEYS[2], redis.call('TYPE', KEYS[2])['ok'])
          end
          if r then
            return {0, r[1], r[2], r[3], r[4], r[5]}
          end
          if ARGV[3] then
            redis.call('HSET', KEYS[1], 's', 'P', 'o', ARGV[1], 'f', ARGV[3])
          else
            redis.call('HSET', KEYS[1], 's', 'P', 'o', ARGV[1])
          end
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          return {1}
          """),

  /**
   * ARGV: owner, ttl ms, outcome, channel, owner digest. Returns 1 when completed (or already
   * completed by this owner with this outcome), 0 when fenced.
   */
  COMPLETE(
      """
      local t = redis.call('TYPE', KEYS[1])['ok']
      if t == 'string' then
        local v = redis.call('GET', KEYS[1])
        local from = 4
        if string.sub(v, 1, 1) == 'f' then
          if #v < 5 then
            return 0
          end
          from = 6 + string.byte(v, 4) * 256 + string.byte(v, 5)
        end
        if string.sub(v, 2, 3) == ARGV[5] and string.sub(v, from) == ARGV[3] then
          return 1
        end
        return 0
      end
      if t ~= 'hash' then
        return 0
      end
      local h = redis.call('HMGET', KEYS[1], 's', 'o', 'f')
      if h[1] ~= 'P' or h[2] ~= ARGV[1] then
        return 0
      end
      local v
      if h[3] then
        v = 'f' .. ARGV[5] .. string.char(math.floor(#h[3] / 256), #h[3] % 256) .. h[3] .. ARGV[3]
      else
        v = 'c' .. ARGV[5] .. ARGV[3]
      end
      redis.call('SET', KEYS[1], v, 'PX', ARGV[2])
      redis.call('PUBLISH', ARGV[4], 'C')
      return 1
      """),

  /**
   * KEYS: record, released owners. ARGV: owner, channel, ms to remember the release. Returns 1 when
   * deleted (or already released by this owner), 0 when fenced.
   */
  RELEASE(
      """
      local h = {}
      if redis.call('TYPE', KEYS[1])['ok'] == 'hash' then
        h = redis.call('HMGET', KEYS[1], 's', 'o')
      end
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
  RENEW(
      """
      if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then
        return 0
      end
      local h = redis.call('HMGET', KEYS[1], 's', 'o')
      if h[1] ~= 'P' or h[2] ~= ARGV[1] then
        return 0
      end
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      return 1
      """),

  /**
   * KEYS: record[, legacy record]. ARGV: channel, store-wide deletes channel, announcement. The
   * administrative delete: removes the record whatever its status and owner (under either name),
   * and announces it on the channel as a release does, so that waiters claim again, and on the
   * store-wide channel, so that near caches in every instance drop it (also when the record was
   * already gone: a cache may still hold an outcome that a failover lost). Returns 1 when a record
   * was there, else 0. The set of released owners is left alone: it only answers resent releases,
   * and a deleted holder's release finds neither its claim nor its token there, so it is fenced.
   */
  DELETE(
      """
      redis.call('PUBLISH', ARGV[2], ARGV[3])
      if redis.call('DEL', unpack(KEYS)) == 0 then
        return 0
      end
      redis.call('PUBLISH', ARGV[1], 'D')
      return 1
      """),

  /**
   * KEYS: record[, legacy record]. Returns {@code {}} when there is no live record, else the
   * record. No writes.
   */
  READ(
      Lua.RECORD
          + """
          local r = record(KEYS[1], redis.call('TYPE', KEYS[1])['ok'])
          if not r and KEYS[2] then
            r = record(KEYS[2], redis.call('TYPE', KEYS[2])['ok'])
          end
          return r or {}
          """),

  /**
   * KEYS: record[, legacy record]. Returns {@code {status|nil, pttl}} without the outcome bytes. No
   * writes.
   */
  PEEK(
      """
      local function status(name)
        local t = redis.call('TYPE', name)['ok']
        if t == 'string' then
          return 'C'
        elseif t == 'hash' then
          return redis.call('HGET', name, 's')
        end
        return false
      end
      local name = KEYS[1]
      local s = status(name)
      if not s and KEYS[2] then
        name = KEYS[2]
        s = status(name)
      end
      return {s, redis.call('PTTL', name)}
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

  /**
   * The SHA-1 digest by which Redis knows the loaded script (the same as {@code SCRIPT LOAD}
   * answers).
   */
  public String sha() {
    return sha;
  }

  /**
   * Whether the script changes the record (and so is followed by {@code WAIT} when replica acks are
   * asked).
   */
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

  /** Lua shared by the scripts that read a whole record. */
  private static final class Lua {
    /**
     * {@code record(name, type)}: the record reply of the key {@code name} of Redis type {@code
     * type}, a {@code ?} status describing a value that is not a record, or nil when there is no
     * key.
     */
    static final String RECORD =
        """
        local function record(name, t)
          if t == 'string' then
            local v = redis.call('GET', name)
            local pttl = redis.call('PTTL', name)
            local format = string.sub(v, 1, 1)
            if format == 'c' and #v >= 3 then
              return {'C', false, false, string.sub(v, 4), pttl}
            elseif format == 'f' and #v >= 5 then
              local n = string.byte(v, 4) * 256 + string.byte(v, 5)
              if #v >= 5 + n then
                return {'C', false, string.sub(v, 6, 5 + n), string.sub(v, 6 + n), pttl}
              end
            end
            return {'?a string of ' .. #v .. ' bytes', false, false, false, pttl}
          elseif t == 'hash' then
            local h = redis.call('HMGET', name, 's', 'o', 'f', 'r')
            if h[1] == 'C' or (h[1] == 'P' and h[2]) then
              return {h[1], h[2], h[3], h[4], redis.call('PTTL', name)}
            end
            return {'?a hash without a status and owner', false, false, false, redis.call('PTTL', name)}
          elseif t ~= 'none' then
            return {'?a ' .. t, false, false, false, redis.call('PTTL', name)}
          end
          return nil
        end
        """;

    private Lua() {}
  }
}
