package dev.idempotent.redisson;

import dev.idempotent.redisson.internal.ChangeWatcher;
import dev.idempotent.redisson.internal.DeleteAnnouncements;
import dev.idempotent.redisson.internal.RecordFormat;
import dev.idempotent.redisson.internal.RecordNames;
import dev.idempotent.redisson.internal.RecordScript;
import dev.idempotent.redisson.internal.ScriptRunner;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.DeleteAnnouncingStore;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.api.RedissonClient;

/**
 * An {@link IdempotencyStore} in Redis, through a {@link RedissonClient}; also its non-blocking
 * face, {@link AsyncIdempotencyStore}, on Redisson's asynchronous API.
 *
 * <pre>{@code
 * IdempotencyStore store = RedissonIdempotencyStore.builder(redissonClient)
 *     .keyPrefix("idem:")                          // optional, default "idem:"
 *     .syncReplicas(1, Duration.ofMillis(500))     // optional: WAIT for one replica after each write
 *     .build();
 * }</pre>
 *
 * <h2>How records are kept</h2>
 *
 * One Redis string per record, named {@code <prefix>{<slot tag>}<scope digest>:<key>}: the hash tag
 * spreads the keys of a scope over all cluster slots, the scope is its 64-bit {@link
 * RecordKey#scopeId() id} in 11 characters (the store keeps nothing else of a scope), see {@link
 * RecordNames}. The value starts with a format byte naming the format version and the kind of
 * record: a claim holds the owner token and the fingerprint, a completed record a 2-byte digest of
 * the owner token, the fingerprint if any and the outcome bytes as they are (binary-safe); the
 * format, byte by byte, is in {@code docs/stores/redis.md}. Every operation is one Lua script on
 * that record, run by SHA with {@code EVALSHA} in one round trip: a claim is {@code SET NX GET PX}
 * (and, when the key is taken, {@code PTTL}); complete, release and renew check the owner token on
 * the server, so a holder whose lease ended can never overwrite or delete a newer holder's record.
 * The scripts are loaded with {@code SCRIPT LOAD} when the store is built; after a server restart,
 * failover or {@code SCRIPT FLUSH} the first {@code NOSCRIPT} answer makes the store load the
 * script again and send it once more. Redis expires records itself: the lease while in progress,
 * the ttl once completed; remaining times come from {@code PTTL}, never from a client clock.
 * Because an ended lease simply makes the record vanish, a claim after it is reported as {@link
 * ClaimResult#acquired()}, never as a takeover. A value under a record's name that is not a record
 * of this format (another Redis type, a string of another format version or too short for its kind)
 * fails every call of its key with {@link dev.idempotent.IdempotencyOutcomeException}, even
 * fail-open, and is never overwritten or deleted, except by {@link #delete}.
 *
 * <h2>Failures and resent commands</h2>
 *
 * Every Redis failure or timeout is an {@link dev.idempotent.IdempotencyStoreException} that names
 * the operation, the scope and redacted key, and Redisson's exception types and descriptions
 * without the command's arguments (Redisson lists them, and a record name holds the whole key); an
 * interrupt of the calling thread is its cause, as an {@link InterruptedException}. Redisson sends
 * a command again when its reply is late, so a complete or release may reach Redis twice: a
 * completed record keeps a digest of its owner token and a repeated complete by that owner with the
 * same outcome answers {@code true} (so does, with a chance of 1 in 65536, a fenced holder whose
 * outcome is byte for byte the stored one; nothing changes either way). A completed record read
 * back has no owner token ({@link IdempotencyRecord#ownerToken()} is {@code null}). A release
 * remembers its owner token for a minute (in {@code <prefix>{<tag>}#released:<digest>:<key>}) so
 * that a repeated release answers {@code true} too, never a false "fenced".
 *
 * <h2>Waiting</h2>
 *
 * {@link #awaitChange} and {@link #awaitChangeAsync} subscribe to the record's sharded channel
 * {@code <record name>#changed} ({@code SSUBSCRIBE}), then flag the claim as waited for, in place,
 * and end on the first message, when the holder's lease ends, or after {@code maxWait}. Complete,
 * release and {@link #delete} publish on the channel ({@code SPUBLISH}, which in a Redis Cluster
 * reaches only the shard that holds the record) only when the claim is flagged: a call that nobody
 * waits for publishes nothing. The flag changes no state, owner, outcome or expiry. Sharded pub/sub
 * needs Redis 7.0 or later, which {@link Builder#build()} checks.
 *
 * <h2>Deletes in other instances</h2>
 *
 * {@link #delete} also publishes the deleted key on one store-wide channel, {@code
 * <prefix>#deleted}; {@link #subscribeToDeletes} listens to it, so that a near cache in every
 * instance drops the record.
 *
 * <h2>Topologies</h2>
 *
 * Whatever the given client is configured for: a standalone server, master with replicas, Sentinel,
 * or Redis Cluster ({@code Config.useSingleServer()}, {@code useSentinelServers()}, {@code
 * useClusterServers()} or a Redisson YAML file). The auto-configured store ({@code
 * idempotent.store=redisson}) reads {@code idempotent.redisson.address} or {@code
 * idempotent.redisson.config}.
 *
 * <h2>What a failover can lose</h2>
 *
 * Redis replicates asynchronously. When a master fails after acknowledging a write but before a
 * replica received it, the promoted replica does not have it: a claim may vanish (a second caller
 * can then run the same key concurrently) and a completed record may vanish (a repeat of the
 * request runs the method again instead of replaying the outcome). {@link Builder#syncReplicas(int,
 * Duration)} narrows this window: each write is pipelined with {@code WAIT numreplicas timeout} on
 * the same connection, so the call returns only once that many replicas acknowledged it, or the
 * timeout passed (then a warning is logged and the call still succeeds: {@code WAIT} does not make
 * Redis strongly consistent, it only makes the loss much less likely). It costs one replica round
 * trip of latency per write, on the blocking and the non-blocking face alike. Renewals are the
 * exception: they never wait for replicas ({@link #renewAllAsync} says why).
 *
 * <h2>Renewal</h2>
 *
 * The core's renewer renews the claims of running calls in batches: {@link #renewAllAsync} sends
 * one renew script per claim, pipelined, so a batch of hundreds of claims costs one round trip per
 * Redis node.
 *
 * <p>Thread-safe. The non-blocking methods never block: their stages complete on Redisson's threads
 * (or, for the end of a wait by time, on one timer thread of the store's own). {@link #close()}
 * shuts the Redisson client down only when the store owns it (the auto-configured store does; a
 * store built from your client does not, unless you ask with {@link
 * Builder#shutdownClientOnClose(boolean)}).
 */
public final class RedissonIdempotencyStore
    implements IdempotencyStore, AsyncIdempotencyStore, DeleteAnnouncingStore {
  /** The longest scope or key kept verbatim in a record name; longer ones arrive digested. */
  public static final int MAX_KEY_LENGTH = 512;

  /** The key prefix used unless {@link Builder#keyPrefix(String)} says otherwise. */
  public static final String DEFAULT_KEY_PREFIX = "idem:";

  /**
   * How long a release is remembered, so that a resent release is answered truthfully: past any
   * client retry.
   */
  private static final byte[] RELEASE_REMEMBERED_MS =
      bytes(Long.toString(Duration.ofMinutes(1).toMillis()));

  private static final int MAX_KEPT_DURATIONS = 256;
  private static final Map<Duration, byte[]> MILLIS = new ConcurrentHashMap<>();

  private final RedissonClient redisson;
  private final RecordNames names;
  private final ScriptRunner scripts;
  private final ChangeWatcher watcher;
  private final DeleteAnnouncements announcements;
  private final byte[] deletesChannel;
  private final int syncReplicas;
  private final Duration syncTimeout;
  private final boolean shutdownClientOnClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  private RedissonIdempotencyStore(Builder b) {
    this.redisson = b.redisson;
    this.names = new RecordNames(b.keyPrefix);
    this.scripts =
        new ScriptRunner(
            b.redisson, b.syncReplicas, b.syncTimeout, b.onSyncTimeout == ReplicaSyncTimeout.FAIL);
    this.watcher = new ChangeWatcher(b.redisson, scripts);
    this.announcements = new DeleteAnnouncements(b.redisson, names);
    this.deletesChannel = bytes(names.deletesChannel());
    this.syncReplicas = b.syncReplicas;
    this.syncTimeout = b.syncTimeout;
    this.shutdownClientOnClose = b.shutdownClientOnClose;
  }

  /** A builder for a store on {@code redisson}, which stays the caller's to shut down. */
  public static Builder builder(RedissonClient redisson) {
    return new Builder(
        Objects.requireNonNull(redisson, "redisson client"),
        DEFAULT_KEY_PREFIX,
        0,
        null,
        ReplicaSyncTimeout.WARN,
        false);
  }

  // ---- the blocking face

  @Override
  public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    byte[] value = RecordFormat.claim(RecordFormat.ownerPart(ownerToken), fingerprint);
    byte[] leaseMs = millis("lease", lease);
    String name = names.recordName(key);
    List<Object> reply = scripts.run(RecordScript.CLAIM, key, name, List.of(name), value, leaseMs);
    return claimResult(key, reply);
  }

  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    byte[] owner = RecordFormat.ownerPart(ownerToken);
    Objects.requireNonNull(outcome, "outcome");
    byte[] ttlMs = millis("ttl", ttl);
    String name = names.recordName(key);
    byte[] digest = RecordFormat.ownerDigestBytes(ownerToken);
    Long done =
        scripts.run(RecordScript.COMPLETE, key, name, List.of(name), owner, ttlMs, digest, outcome);
    return done == 1;
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    byte[] owner = RecordFormat.ownerPart(ownerToken);
    String name = names.recordName(key);
    Long done =
        scripts.run(
            RecordScript.RELEASE, key, name, releaseKeys(name), owner, RELEASE_REMEMBERED_MS);
    return done == 1;
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    byte[] owner = RecordFormat.ownerPart(ownerToken);
    byte[] leaseMs = millis("lease", lease);
    String name = names.recordName(key);
    Long done = scripts.run(RecordScript.RENEW, key, name, List.of(name), owner, leaseMs);
    return done == 1;
  }

  /**
   * Renews every claim with the renew script, all pipelined in one round trip per Redis node (see
   * {@link #renewAllAsync}), and waits for the answers.
   */
  @Override
  public boolean[] renewAll(List<HeldClaim> claims, Duration lease) {
    return ScriptRunner.await(renewAllAsync(claims, lease).toCompletableFuture());
  }

  /**
   * Deletes whatever is under the record's name, whatever its status and owner, in one script that
   * also wakes the record's waiters, as after a release, and announces the delete on the store-wide
   * channel {@code <prefix>#deleted} (see {@link #subscribeToDeletes}).
   */
  @Override
  public boolean delete(RecordKey key) {
    Objects.requireNonNull(key, "key");
    String name = names.recordName(key);
    Long done =
        scripts.run(
            RecordScript.DELETE,
            key,
            name,
            List.of(name),
            deletesChannel,
            DeleteAnnouncements.announcement(key));
    return done == 1;
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    String name = names.recordName(key);
    List<Object> reply = scripts.run(RecordScript.READ, key, name, List.of(name));
    return Optional.ofNullable(RecordFormat.fromReply(key, reply, names.prefix()));
  }

  /**
   * Returns on the first change of the record (completion, release, delete), when the holder's
   * lease ends, or after {@code maxWait}; at once when the key holds no claim. Interruptible.
   */
  @Override
  public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
    CompletableFuture<Void> wait = watcher.await(key, names.recordName(key), maxWait);
    try {
      wait.get();
    } catch (InterruptedException e) {
      wait.cancel(false);
      throw e;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  // ---- the non-blocking face

  @Override
  public CompletionStage<ClaimResult> claimAsync(
      RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    byte[] value = RecordFormat.claim(RecordFormat.ownerPart(ownerToken), fingerprint);
    byte[] leaseMs = millis("lease", lease);
    String name = names.recordName(key);
    return scripts.runAsync(
        RecordScript.CLAIM,
        key,
        name,
        List.of(name),
        (List<Object> reply) -> claimResult(key, reply),
        value,
        leaseMs);
  }

  @Override
  public CompletionStage<Boolean> completeAsync(
      RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    byte[] owner = RecordFormat.ownerPart(ownerToken);
    Objects.requireNonNull(outcome, "outcome");
    byte[] ttlMs = millis("ttl", ttl);
    String name = names.recordName(key);
    byte[] digest = RecordFormat.ownerDigestBytes(ownerToken);
    return scripts.runAsync(
        RecordScript.COMPLETE,
        key,
        name,
        List.of(name),
        RedissonIdempotencyStore::applied,
        owner,
        ttlMs,
        digest,
        outcome);
  }

  @Override
  public CompletionStage<Boolean> releaseAsync(RecordKey key, String ownerToken) {
    byte[] owner = RecordFormat.ownerPart(ownerToken);
    String name = names.recordName(key);
    return scripts.runAsync(
        RecordScript.RELEASE,
        key,
        name,
        releaseKeys(name),
        RedissonIdempotencyStore::applied,
        owner,
        RELEASE_REMEMBERED_MS);
  }

  @Override
  public CompletionStage<Boolean> renewAsync(RecordKey key, String ownerToken, Duration lease) {
    byte[] owner = RecordFormat.ownerPart(ownerToken);
    byte[] leaseMs = millis("lease", lease);
    String name = names.recordName(key);
    return scripts.runAsync(
        RecordScript.RENEW,
        key,
        name,
        List.of(name),
        RedissonIdempotencyStore::applied,
        owner,
        leaseMs);
  }

  /**
   * One renew script per claim, each owner-checked on the server, pipelined in one Redisson batch:
   * one round trip per Redis node for the whole batch, never followed by {@code WAIT}, even with
   * {@link Builder#syncReplicas}: a renewal only moves an expiry, every third of the lease, and the
   * next one makes good a renewal a failover lost.
   */
  @Override
  public CompletableFuture<boolean[]> renewAllAsync(List<HeldClaim> claims, Duration lease) {
    byte[] leaseMs = millis("lease", lease);
    List<RecordKey> keys = new ArrayList<>(claims.size());
    List<String> recordNames = new ArrayList<>(claims.size());
    List<Object[]> args = new ArrayList<>(claims.size());
    for (HeldClaim c : claims) {
      keys.add(c.key());
      recordNames.add(names.recordName(c.key()));
      args.add(new Object[] {RecordFormat.ownerPart(c.ownerToken()), leaseMs});
    }
    return scripts
        .runEachAsync(RecordScript.RENEW, keys, recordNames, args)
        .thenApply(
            replies -> {
              boolean[] renewed = new boolean[replies.size()];
              for (int i = 0; i < renewed.length; i++) {
                renewed[i] = Long.valueOf(1).equals(replies.get(i));
              }
              return renewed;
            });
  }

  @Override
  public CompletionStage<Optional<IdempotencyRecord>> readAsync(RecordKey key) {
    String name = names.recordName(key);
    return scripts.runAsync(
        RecordScript.READ,
        key,
        name,
        List.of(name),
        (List<Object> reply) ->
            Optional.ofNullable(RecordFormat.fromReply(key, reply, names.prefix())));
  }

  /**
   * Completes on the first change of the record (completion, release, delete), when the holder's
   * lease ends, or after {@code maxWait}; at once when the key holds no claim. No thread waits: the
   * stage completes from the pub/sub message or from the store's timer. Cancelling the stage ends
   * the wait and its subscription.
   */
  @Override
  public CompletionStage<Void> awaitChangeAsync(RecordKey key, Duration maxWait) {
    return watcher.await(key, names.recordName(key), maxWait);
  }

  // ---- deletes in other instances

  /**
   * Subscribes {@code listener} to the deletes of every store on this Redis with the same key
   * prefix, in every instance: one subscription to the store-wide channel {@code <prefix>#deleted}.
   * Redisson subscribes again after a lost connection; every (re)subscription is reported as {@link
   * DeleteListener#deletesMayHaveBeenMissed()}, since messages published meanwhile are lost.
   */
  @Override
  public Subscription subscribeToDeletes(DeleteListener listener) {
    return announcements.subscribe(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * {@value #MAX_KEY_LENGTH}: longer scopes or keys are replaced by their digest before they reach
   * the store.
   */
  @Override
  public int maxKeyLength() {
    return MAX_KEY_LENGTH;
  }

  /**
   * Ends the waits still pending, and shuts the Redisson client down when this store owns it.
   * Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      watcher.close();
      if (shutdownClientOnClose) {
        redisson.shutdown();
      }
    }
  }

  @Override
  public String toString() {
    return "RedissonIdempotencyStore{prefix="
        + names.prefix()
        + (syncReplicas > 0 ? ", syncReplicas=" + syncReplicas + "/" + syncTimeout : "")
        + "}";
  }

  // ---- shared by both faces

  private ClaimResult claimResult(RecordKey key, List<Object> reply) {
    IdempotencyRecord existing = RecordFormat.fromReply(key, reply, names.prefix());
    return existing == null ? ClaimResult.acquired() : ClaimResult.existing(existing);
  }

  private static Boolean applied(Long reply) {
    return reply == 1;
  }

  private static List<Object> releaseKeys(String name) {
    return List.of(name, RecordNames.releasedOf(name));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The argument of a lease or ttl, in whole milliseconds rounded up, as ASCII digits. Calls pass
   * the few durations of their plans again and again, so each one's digits are kept (the bytes are
   * only read when a command is written); past {@link #MAX_KEPT_DURATIONS} the memory restarts.
   */
  private static byte[] millis(String what, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(what + " must be a positive duration, was " + d);
    }
    byte[] kept = MILLIS.get(d);
    if (kept != null) {
      return kept;
    }
    long ms;
    try {
      ms = Math.max(1, d.toMillis() + (d.toNanosPart() % 1_000_000 == 0 ? 0 : 1));
    } catch (ArithmeticException e) {
      ms = Long.MAX_VALUE / 2;
    }
    byte[] digits = bytes(Long.toString(ms));
    if (MILLIS.size() >= MAX_KEPT_DURATIONS) {
      MILLIS.clear();
    }
    MILLIS.put(d, digits);
    return digits;
  }

  /**
   * Settings for a {@link RedissonIdempotencyStore}. Immutable: each method returns a new builder
   * and checks its value at once.
   */
  public static final class Builder {
    private final RedissonClient redisson;
    private final String keyPrefix;
    private final int syncReplicas;
    private final Duration syncTimeout;
    private final ReplicaSyncTimeout onSyncTimeout;
    private final boolean shutdownClientOnClose;

    private Builder(
        RedissonClient redisson,
        String keyPrefix,
        int syncReplicas,
        Duration syncTimeout,
        ReplicaSyncTimeout onSyncTimeout,
        boolean shutdownClientOnClose) {
      this.redisson = redisson;
      this.keyPrefix = keyPrefix;
      this.syncReplicas = syncReplicas;
      this.syncTimeout = syncTimeout;
      this.onSyncTimeout = onSyncTimeout;
      this.shutdownClientOnClose = shutdownClientOnClose;
    }

    /**
     * The prefix of every record name and channel, default {@value
     * RedissonIdempotencyStore#DEFAULT_KEY_PREFIX}. Give each application (or environment sharing
     * one Redis) its own. At most 100 characters, no braces (the store places the cluster hash tag
     * itself); may be empty.
     */
    public Builder keyPrefix(String keyPrefix) {
      RecordNames.checkPrefix(keyPrefix);
      return new Builder(
          redisson, keyPrefix, syncReplicas, syncTimeout, onSyncTimeout, shutdownClientOnClose);
    }

    /**
     * After each write (claim, complete, release, delete; not a lease renewal, see {@link
     * RedissonIdempotencyStore#renewAllAsync}), waits with Redis {@code WAIT} until {@code count}
     * replicas acknowledged it or {@code timeout} passed; see the class javadoc for what this
     * protects against. Off by default.
     *
     * @param count at least 1
     * @param timeout positive; when it passes first, a warning is logged and the call still
     *     succeeds
     */
    public Builder syncReplicas(int count, Duration timeout) {
      return syncReplicas(count, timeout, ReplicaSyncTimeout.WARN);
    }

    /**
     * {@link #syncReplicas(int, Duration)}, with what a completion does when its {@code WAIT} times
     * out: {@link ReplicaSyncTimeout#WARN} (log and succeed) or {@link ReplicaSyncTimeout#FAIL}
     * (the call fails with {@code IdempotencyStoreException} after its method ran).
     */
    public Builder syncReplicas(int count, Duration timeout, ReplicaSyncTimeout onTimeout) {
      Objects.requireNonNull(onTimeout, "onTimeout (WARN or FAIL)");
      if (count < 1) {
        throw new IllegalArgumentException(
            "syncReplicas count must be at least 1, was "
                + count
                + ": leave syncReplicas unset to not wait for replicas");
      }
      if (timeout == null || timeout.isZero() || timeout.isNegative()) {
        throw new IllegalArgumentException(
            "syncReplicas timeout must be a positive duration, was "
                + timeout
                + ": for example Duration.ofMillis(500)");
      }
      return new Builder(redisson, keyPrefix, count, timeout, onTimeout, shutdownClientOnClose);
    }

    /**
     * Whether {@link RedissonIdempotencyStore#close()} shuts the Redisson client down; default
     * {@code false}, because the client is yours.
     */
    public Builder shutdownClientOnClose(boolean shutdown) {
      return new Builder(redisson, keyPrefix, syncReplicas, syncTimeout, onSyncTimeout, shutdown);
    }

    /**
     * Builds the store, loads its scripts into Redis ({@code SCRIPT LOAD} on every node) and checks
     * that Redis has sharded pub/sub (Redis 7.0 or later), so a server that cannot be reached or is
     * too old fails here, within the client's timeouts.
     *
     * @throws IllegalStateException when Redis is older than 7.0
     */
    public RedissonIdempotencyStore build() {
      RedissonIdempotencyStore store = new RedissonIdempotencyStore(this);
      store.scripts.loadAll();
      requireShardedPubSub(store);
      return store;
    }

    private void requireShardedPubSub(RedissonIdempotencyStore store) {
      try {
        redisson.getShardedTopic(store.names.deletesChannel()).countSubscribers();
      } catch (RuntimeException e) {
        String message = String.valueOf(e.getMessage());
        if (message.toLowerCase(java.util.Locale.ROOT).contains("unknown")) {
          throw new IllegalStateException(
              "Redis does not know PUBSUB SHARDNUMSUB: the Redis store notifies waiting calls with"
                  + " sharded pub/sub (SSUBSCRIBE, SPUBLISH), which needs Redis 7.0 or later;"
                  + " upgrade Redis",
              e);
        }
        throw e;
      }
    }
  }

  /** For tests in this package: the record names in use. */
  RecordNames names() {
    return names;
  }
}
