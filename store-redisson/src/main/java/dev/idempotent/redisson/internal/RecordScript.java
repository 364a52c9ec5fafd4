package dev.idempotent.redisson.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * One server-side step of the store: a Lua script over one record ({@code KEYS[1]}), run with
 * {@code EVALSHA}. Records are strings of {@link RecordFormat} (first byte {@code \x11} a claim,
 * {@code \x12} or {@code \x13} a completed record), so the common paths run the commands a
 * hand-written store would:
 *
 * <ul>
 *   <li>claim of a free key: {@code SET NX GET PX}, which answers nil;
 *   <li>claim of a taken key (a replay, or a call in progress): {@code SET NX GET PX}, which sets
 *       nothing and answers the value there, and {@code PTTL};
 *   <li>completion: {@code GET}, the owner check, {@code SET PX}, and {@code SPUBLISH} only when a
 *       waiter flagged the claim.
 * </ul>
 *
 * A value of another Redis type under a record's name is detected by {@code redis.pcall} of the
 * {@code GET} (or {@code SET NX GET}) answering a WRONGTYPE error, which a record never does (any
 * other error is the script's answer); a string that is not a well-formed record of this format is
 * recognised by its bytes. Neither is ever overwritten, extended or deleted by claim, complete,
 * release, renew or watch; the replies describe it and the store refuses the call.
 *
 * <p>Redis expires the record itself: {@code PX} is the lease while in progress and the ttl once
 * completed, and a record's remaining time is read with {@code PTTL} inside the script, so no
 * client clock is involved. Record replies are {@code {}} (no record), {@code {value, pttl}} or
 * {@code {type}} for another Redis type (see {@link RecordFormat#fromReply}).
 *
 * <p>Waiters: a waiter subscribes to the record's sharded channel {@code <record name>#changed},
 * then runs {@link #WATCH}, which sets the claim's waiters flag in place ({@code SETRANGE}, which
 * keeps the value's expiry and changes no owner, fingerprint or state). Complete, release and
 * delete publish on the channel only when the flag is set, so a call nobody waits for publishes
 * nothing, and {@code SPUBLISH} reaches only the shard that holds the record.
 *
 * <p>Complete and release answer a resent command truthfully: Redisson sends a command again when
 * its reply did not arrive in time, and the executor repeats a write that failed on an interrupted
 * thread, so the first attempt may have been applied already. A completed record keeps a digest of
 * its owner token, and a repeated complete by that owner with the same outcome answers 1 (another
 * owner whose outcome is byte for byte the stored one and whose token has the same 16-bit digest
 * would be answered 1 too, changing nothing); a release leaves the owner part in a short-lived set
 * of released owners ({@code KEYS[2]}, same hash tag), and a repeated release by that owner answers
 * 1.
 *
 * <p>In the Lua sources {@code '\17'}, {@code '\18'} and {@code '\19'} are the format bytes 0x11,
 * 0x12 and 0x13, and {@code '\255\255'} the fingerprint length of a claim without one.
 */
public enum RecordScript {
  /**
   * ARGV: the claim's value, lease ms. Returns {@code {}} when claimed, else the record reply of
   * what holds the key. A claim by the owner that already holds the key with the same fingerprint
   * (a client retry of the same call) renews it and counts as claimed.
   */
  CLAIM(
      """
      local v = redis.pcall('SET', KEYS[1], ARGV[1], 'NX', 'GET', 'PX', ARGV[2])
      if not v then
        return {}
      end
      if type(v) == 'table' then
        if string.sub(v['err'], 1, 9) == 'WRONGTYPE' then
          return {redis.call('TYPE', KEYS[1])['ok']}
        end
        return v
      end
      local n = string.byte(ARGV[1], 3)
      if string.sub(v, 1, 1) == '\\17'
          and string.sub(v, 3, 3 + n) == string.sub(ARGV[1], 3, 3 + n)
          and string.sub(v, 4 + n) == string.sub(ARGV[1], 4 + n)
          and string.byte(v, 2) <= 1 then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return {}
      end
      return {v, redis.call('PTTL', KEYS[1])}
      """),

  /**
   * ARGV: owner part, ttl ms, owner digest, outcome. Returns 1 when completed (or already completed
   * by this owner with this outcome), 0 when fenced.
   */
  COMPLETE(
      Lua.HELD_BY
          + """
          local v = redis.pcall('GET', KEYS[1])
          if heldBy(v, ARGV[1]) then
            local f = string.sub(v, 3 + #ARGV[1])
            if f == '\\255\\255' then
              redis.call('SET', KEYS[1], '\\18' .. ARGV[3] .. ARGV[4], 'PX', ARGV[2])
            else
              redis.call('SET', KEYS[1], '\\19' .. ARGV[3] .. f .. ARGV[4], 'PX', ARGV[2])
            end
            if string.byte(v, 2) == 1 then
              redis.call('SPUBLISH', KEYS[1] .. '#changed', 'C')
            end
            return 1
          end
          if type(v) ~= 'string' or string.sub(v, 2, 3) ~= ARGV[3] then
            return 0
          end
          local from = 0
          if string.sub(v, 1, 1) == '\\18' then
            from = 4
          elseif string.sub(v, 1, 1) == '\\19' and #v >= 5 then
            from = 6 + string.byte(v, 4) * 256 + string.byte(v, 5)
          end
          if from > 0 and #v >= from - 1 and string.sub(v, from) == ARGV[4] then
            return 1
          end
          return 0
          """),

  /**
   * KEYS: record, released owners. ARGV: owner part, ms to remember the release. Returns 1 when
   * deleted (or already released by this owner), 0 when fenced.
   */
  RELEASE(
      Lua.HELD_BY
          + """
          local v = redis.pcall('GET', KEYS[1])
          if not heldBy(v, ARGV[1]) then
            return redis.call('SISMEMBER', KEYS[2], ARGV[1])
          end
          redis.call('DEL', KEYS[1])
          redis.call('SADD', KEYS[2], ARGV[1])
          redis.call('PEXPIRE', KEYS[2], ARGV[2])
          if string.byte(v, 2) == 1 then
            redis.call('SPUBLISH', KEYS[1] .. '#changed', 'R')
          end
          return 1
          """),

  /** ARGV: owner part, lease ms. Returns 1 when renewed, 0 when fenced. */
  RENEW(
      Lua.HELD_BY
          + """
          if heldBy(redis.pcall('GET', KEYS[1]), ARGV[1]) then
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return 1
          end
          return 0
          """),

  /**
   * ARGV: store-wide deletes channel, announcement. The administrative delete: removes whatever is
   * under the record's name, whatever its status and owner, notifies the record's waiters when a
   * claim was flagged (so that they claim again, as after a release), and announces the delete on
   * the store-wide channel with {@code PUBLISH}, so that near caches in every instance drop the
   * record (also when it was already gone: a cache may still hold an outcome that a failover lost).
   * Returns 1 when something was there, else 0. The set of released owners is left alone: it only
   * answers resent releases, and a deleted holder's release finds neither its claim nor its token
   * there, so it is fenced.
   */
  DELETE(
      """
      redis.call('PUBLISH', ARGV[1], ARGV[2])
      local v = redis.pcall('GET', KEYS[1])
      if type(v) == 'string' and string.sub(v, 1, 2) == '\\17\\1' then
        redis.call('SPUBLISH', KEYS[1] .. '#changed', 'D')
      end
      return redis.call('DEL', KEYS[1])
      """),

  /** The record reply of what holds the key. No writes. */
  READ(
      """
      local v = redis.pcall('GET', KEYS[1])
      if not v then
        return {}
      end
      if type(v) == 'table' then
        return {redis.call('TYPE', KEYS[1])['ok']}
      end
      return {v, redis.call('PTTL', KEYS[1])}
      """),

  /**
   * The waiter's step, run after it subscribed to the record's channel: when the key holds a claim,
   * sets the claim's waiters flag (its second byte) unless it is set, and returns the lease's
   * remaining ms; otherwise returns -2 (the key is free, completed or not a record: nothing to wait
   * for). The flag changes no state, owner, fingerprint, outcome or expiry.
   */
  WATCH(
      Lua.HELD_BY
          + """
          local v = redis.pcall('GET', KEYS[1])
          if type(v) ~= 'string' or #v < 6 or string.byte(v, 3) == 0
              or not heldBy(v, string.sub(v, 3, 3 + string.byte(v, 3))) then
            return -2
          end
          if string.byte(v, 2) == 0 then
            redis.call('SETRANGE', KEYS[1], 1, '\\1')
          end
          return redis.call('PTTL', KEYS[1])
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
   * Whether the script changes a record's state, and so is followed by {@code WAIT} when replica
   * acknowledgements are asked. The waiters flag set by {@link #WATCH} is not worth a replica round
   * trip: a waiter whose flag a failover lost waits until its bounded timeout. Nor is a renewal
   * ({@link #RENEW}): it only moves an expiry, every third of the lease, and one a failover loses
   * is made good by the next one, while waiting would hold every renewal for a slow replica (see
   * the {@code IdempotencyStore} javadoc, <i>Renewal</i>).
   */
  public boolean waitsForReplicas() {
    return this != READ && this != WATCH && this != RENEW;
  }

  /** Whether the reply is a list (a record reply) rather than a number. */
  public boolean repliesWithList() {
    return this == CLAIM || this == READ;
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

  /** Lua shared by the scripts that act on a claim. */
  private static final class Lua {
    /**
     * {@code heldBy(v, o)}: whether the value {@code v} (a {@code GET} reply, possibly false or an
     * error) is a well-formed claim of format version 1 whose owner part is {@code o} (length byte
     * and token): format byte 0x11, a waiters flag of 0 or 1, the owner part at byte 3, and a
     * fingerprint part whose length matches the rest of the value.
     */
    static final String HELD_BY =
        """
        local function heldBy(v, o)
          if type(v) ~= 'string' or string.sub(v, 1, 1) ~= '\\17' or string.sub(v, 3, 2 + #o) ~= o
              or string.byte(v, 2) > 1 or #v < 4 + #o then
            return false
          end
          local f = string.byte(v, 3 + #o) * 256 + string.byte(v, 4 + #o)
          if f == 65535 then
            f = 0
          end
          return #v == 4 + #o + f
        end
        """;

    private Lua() {}
  }
}
