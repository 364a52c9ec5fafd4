package dev.idempotent.redisson;

/**
 * What a completion does when fewer replicas than {@link
 * RedissonIdempotencyStore.Builder#syncReplicas(int, java.time.Duration, ReplicaSyncTimeout) asked}
 * acknowledged it within the timeout. Redis is not a consensus store: a {@code WAIT} that times out
 * leaves the record on the primary only, where a failover before replication loses it.
 */
public enum ReplicaSyncTimeout {
  /**
   * The completion succeeds and a warning is logged: the caller gets its result, and a failover in
   * that window may let a repeat run the method again. The default.
   */
  WARN,

  /**
   * The call fails with {@code IdempotencyStoreException} after its method ran: an ambiguous
   * outcome for the caller (the work happened; its record is on the primary, not confirmed on the
   * replicas). A repeat on the same primary still replays it. Claims, releases and renewals keep
   * warning: the method has not run, or has ended, when they are written.
   */
  FAIL
}
