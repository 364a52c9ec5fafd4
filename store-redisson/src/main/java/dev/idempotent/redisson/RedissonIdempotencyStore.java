package dev.idempotent.redisson;

import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.redisson.internal.RecordLayout;
import dev.idempotent.redisson.internal.RecordScript;
import dev.idempotent.redisson.internal.RedactedFailure;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.DeleteAnnouncingStore;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RMap;
import org.redisson.api.RScript;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.StatusListener;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link IdempotencyStore} in Redis, through a {@link RedissonClient}.
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
 * One Redis key per record, named {@code <prefix>{<slot tag>}<scope digest>:<key>}: the hash tag is
 * derived from a digest of scope and key, so each record lives in one cluster slot and keys spread
 * over all slots, and the scope is an 8-character digest whose text is kept once in the hash {@code
 * <prefix>scopes} (see {@link RecordLayout}). A claim is a small hash holding the owner token; a
 * completed record is a plain string as small as its content: a format byte, a 2-byte digest of the
 * owner token, the fingerprint if any, and the outcome bytes (see {@link RecordScript}). Records
 * written by earlier versions (one hash named after the whole scope) are still read, replayed and
 * deleted unless {@link Builder#readLegacyRecords(boolean)} turns that off; they expire by their
 * ttl. Every operation is one Lua script on that record, run by SHA with {@code EVALSHA} in one
 * round trip: claim, complete, release and renew check the owner token on the server, so a holder
 * whose lease ended can never overwrite or delete a newer holder's record. The scripts are loaded
 * with {@code SCRIPT LOAD} when the store is built; after a server restart, failover or {@code
 * SCRIPT FLUSH} the first {@code NOSCRIPT} answer makes the store load the script again and retry
 * once. Outcome bytes are stored as they are (binary-safe, no text encoding). Redis expires records
 * itself: the lease while in progress, the ttl once completed; remaining times come from {@code
 * PTTL}, never from a client clock. Because an ended lease simply makes the record vanish, a claim
 * after it is reported as {@link ClaimResult#acquired()}, never as a takeover.
 *
 * <h2>Failures and resent commands</h2>
 *
 * Every Redis failure or timeout is thrown as an {@link dev.idempotent.IdempotencyStoreException}
 * that names the operation, the scope and redacted key, and Redisson's exception types and
 * descriptions without the command's arguments (Redisson lists them, and a record name holds the
 * whole key); an interrupt of the calling thread is its cause, as an {@link InterruptedException}.
 * Redisson sends a command again when its reply is late, so a complete or release may reach Redis
 * twice: a completed record keeps a digest of its owner token and a repeated complete by that owner
 * with the same outcome answers {@code true} (so does, with a chance of 1 in 65536, a fenced holder
 * whose outcome is byte for byte the stored one; nothing changes either way). A completed record
 * read back has no owner token ({@link IdempotencyRecord#ownerToken()} is {@code null}). A release
 * remembers its owner token for a minute (in {@code <prefix>{<tag>}#released:<digest>:<key>}) so
 * that a repeated release answers {@code true} too, never a false "fenced".
 *
 * <h2>Waiting</h2>
 *
 * Complete, release and {@link #delete} {@code PUBLISH} on the channel {@code <record
 * name>#changed}. {@link #awaitChange} subscribes to it for the duration of the wait, then checks
 * the record once (it may have changed before the subscription), and returns on the first message,
 * when the holder's lease ends, or after {@code maxWait}. A waiter never writes.
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
 * trip of latency per write.
 *
 * <p>Thread-safe. {@link #close()} shuts the Redisson client down only when the store owns it (the
 * auto-configured store does; a store built from your client does not, unless you ask with {@link
 * Builder#shutdownClientOnClose(boolean)}).
 */
public final class RedissonIdempotencyStore implements IdempotencyStore, DeleteAnnouncingStore {
  /** The longest scope or key kept verbatim in a record name; longer ones arrive digested. */
  public static final int MAX_KEY_LENGTH = 512;

  /** The key prefix used unless {@link Builder#keyPrefix(String)} says otherwise. */
  public static final String DEFAULT_KEY_PREFIX = "idem:";

  private static final Logger log = LoggerFactory.getLogger(RedissonIdempotencyStore.class);

  /**
   * The longest fingerprint a record keeps, in UTF-8 bytes (its length takes two bytes of a
   * completed record).
   */
  static final int MAX_FINGERPRINT_BYTES = 65_535;

  /**
   * Scopes remembered as written to {@code <prefix>scopes}; past this many the memory starts again.
   */
  private static final int MAX_REGISTERED_SCOPES = 10_000;

  /**
   * How long a release is remembered, so that a resent release is answered truthfully: past any
   * client retry.
   */
  private static final byte[] RELEASE_REMEMBERED_MS =
      bytes(Long.toString(Duration.ofMinutes(1).toMillis()));

  private final RedissonClient redisson;
  private final RScript script;
  private final RecordLayout layout;
  private final boolean readLegacyRecords;
  private final Map<String, Boolean> registeredScopes = new ConcurrentHashMap<>();
  private final int syncReplicas;
  private final Duration syncTimeout;
  private final boolean shutdownClientOnClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  private RedissonIdempotencyStore(Builder b) {
    this.redisson = b.redisson;
    this.script = b.redisson.getScript(ByteArrayCodec.INSTANCE);
    this.layout = new RecordLayout(b.keyPrefix);
    this.readLegacyRecords = b.readLegacyRecords;
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
        false,
        true);
  }

  @Override
  public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    requireOwner(ownerToken);
    byte[] leaseMs = millis("lease", lease);
    byte[] fingerprintBytes = fingerprint == null ? null : bytes(fingerprint);
    if (fingerprintBytes != null && fingerprintBytes.length > MAX_FINGERPRINT_BYTES) {
      throw new IllegalArgumentException(
          "fingerprint is "
              + fingerprintBytes.length
              + " bytes long: the Redis store "
              + "keeps at most "
              + MAX_FINGERPRINT_BYTES
              + "; use a digest of the payload as the fingerprint");
    }
    String name = layout.recordName(key);
    registerScope(key, name);
    List<Object> keys = withLegacy(key, name);
    List<Object> reply =
        fingerprint == null
            ? run(RecordScript.CLAIM, key, name, keys, bytes(ownerToken), leaseMs)
            : run(
                RecordScript.CLAIM, key, name, keys, bytes(ownerToken), leaseMs, fingerprintBytes);
    if (asLong(reply.get(0)) == 1) {
      return ClaimResult.acquired();
    }
    return ClaimResult.existing(toRecord(key, reply, 1));
  }

  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    requireOwner(ownerToken);
    Objects.requireNonNull(outcome, "outcome");
    byte[] ttlMs = millis("ttl", ttl);
    String name = layout.recordName(key);
    Long done =
        run(
            RecordScript.COMPLETE,
            key,
            name,
            List.of(name),
            bytes(ownerToken),
            ttlMs,
            outcome,
            bytes(RecordLayout.channelOf(name)),
            RecordLayout.ownerDigest(ownerToken));
    return done == 1;
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    requireOwner(ownerToken);
    String name = layout.recordName(key);
    Long done =
        run(
            RecordScript.RELEASE,
            key,
            name,
            List.of(name, RecordLayout.releasedOf(name)),
            bytes(ownerToken),
            bytes(RecordLayout.channelOf(name)),
            RELEASE_REMEMBERED_MS);
    return done == 1;
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    requireOwner(ownerToken);
    byte[] leaseMs = millis("lease", lease);
    String name = layout.recordName(key);
    Long done = run(RecordScript.RENEW, key, name, List.of(name), bytes(ownerToken), leaseMs);
    return done == 1;
  }

  /**
   * Deletes the record whatever its status and owner, in one script that also publishes on the
   * record's channel, so that waiters return at once as after a release.
   */
  @Override
  public boolean delete(RecordKey key) {
    Objects.requireNonNull(key, "key");
    String name = layout.recordName(key);
    Long done =
        run(
            RecordScript.DELETE,
            key,
            name,
            withLegacy(key, name),
            bytes(RecordLayout.channelOf(name)),
            bytes(deletesChannel()),
            bytes(key.scope().length() + ":" + key.scope() + key.key()));
    return done == 1;
  }

  /**
   * The store-wide channel on which {@link #delete} announces every administrative delete: {@code
   * <prefix>#deleted}, with the message {@code <scope length>:<scope><key>}.
   */
  String deletesChannel() {
    return layout.prefix() + "#deleted";
  }

  /**
   * Subscribes {@code listener} to the deletes of every store on this Redis with the same key
   * prefix, in every instance: one subscription to the store-wide channel. Redisson subscribes
   * again after a lost connection; every (re)subscription is reported as {@link
   * DeleteListener#deletesMayHaveBeenMissed()}, since messages published meanwhile are lost.
   */
  @Override
  public Subscription subscribeToDeletes(DeleteListener listener) {
    Objects.requireNonNull(listener, "listener");
    RTopic topic = redisson.getTopic(deletesChannel(), StringCodec.INSTANCE);
    int statusId =
        topic.addListener(
            new StatusListener() {
              @Override
              public void onSubscribe(String channel) {
                listener.deletesMayHaveBeenMissed();
              }

              @Override
              public void onUnsubscribe(String channel) {
                listener.deletesMayHaveBeenMissed();
              }
            });
    int messageId;
    try {
      messageId =
          topic.addListener(
              String.class,
              (channel, message) -> {
                RecordKey deleted = announced(message);
                if (deleted == null) {
                  log.warn(
                      "unreadable announcement of a delete on {}; every near-cache entry is"
                          + " dropped",
                      channel);
                  listener.deletesMayHaveBeenMissed();
                } else {
                  listener.deleted(deleted);
                }
              });
    } catch (RuntimeException e) {
      topic.removeListener(statusId);
      throw e;
    }
    AtomicBoolean ended = new AtomicBoolean();
    return () -> {
      if (ended.compareAndSet(false, true)) {
        topic.removeListener(statusId, messageId);
      }
    };
  }

  /**
   * The key of an announcement {@code <scope length>:<scope><key>}, or {@code null} when it is not
   * one.
   */
  static RecordKey announced(String message) {
    int colon = message.indexOf(':');
    try {
      int scopeLength = Integer.parseInt(message.substring(0, colon));
      int keyStart = colon + 1 + scopeLength;
      return RecordKey.of(message.substring(colon + 1, keyStart), message.substring(keyStart));
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    String name = layout.recordName(key);
    List<Object> reply = run(RecordScript.READ, key, name, withLegacy(key, name));
    return reply.isEmpty() ? Optional.empty() : Optional.of(toRecord(key, reply, 0));
  }

  /**
   * Waits for the holder's completion or release message on the record's channel, for the end of
   * its lease, or for {@code maxWait}, whichever comes first. Subscribes for the wait only; never
   * writes.
   */
  @Override
  public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
    long deadline = System.nanoTime() + Math.max(0, maxWait.toNanos());
    if (maxWait.isZero() || maxWait.isNegative()) {
      return;
    }
    String name = layout.recordName(key);
    CountDownLatch changed = new CountDownLatch(1);
    RTopic topic = redisson.getTopic(RecordLayout.channelOf(name), StringCodec.INSTANCE);
    RFuture<Integer> subscription =
        topic.addListenerAsync(String.class, (channel, message) -> changed.countDown());
    Integer listenerId = null;
    try {
      listenerId = awaitSubscription(subscription, deadline, key, name);
      if (listenerId == null) {
        return;
      }
      List<Object> peek = run(RecordScript.PEEK, key, name, withLegacy(key, name));
      if (peek.get(0) == null || !"P".equals(text(peek.get(0)))) {
        return; // completed or gone before we listened
      }
      long leaseLeftNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, asLong(peek.get(1))) + 1);
      long waitNanos = Math.min(deadline - System.nanoTime(), leaseLeftNanos);
      if (waitNanos > 0) {
        changed.await(waitNanos, TimeUnit.NANOSECONDS);
      }
    } finally {
      if (listenerId != null) {
        topic.removeListenerAsync(listenerId);
      } else {
        subscription.whenComplete(
            (id, error) -> {
              if (id != null) {
                topic.removeListenerAsync(id);
              }
            });
      }
    }
  }

  private Integer awaitSubscription(
      RFuture<Integer> subscription, long deadline, RecordKey key, String name)
      throws InterruptedException {
    Future<Integer> future = subscription.toCompletableFuture();
    try {
      return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return null; // maxWait passed while subscribing: a spurious early return is allowed
    } catch (ExecutionException e) {
      throw RedactedFailure.of(
          "SUBSCRIBE to the record's change channel", key, sent(key, name), e.getCause());
    }
  }

  /**
   * {@value #MAX_KEY_LENGTH}: longer scopes or keys are replaced by their digest before they reach
   * the store.
   */
  @Override
  public int maxKeyLength() {
    return MAX_KEY_LENGTH;
  }

  /** Shuts the Redisson client down when this store owns it; otherwise does nothing. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true) && shutdownClientOnClose) {
      redisson.shutdown();
    }
  }

  @Override
  public String toString() {
    return "RedissonIdempotencyStore{prefix="
        + layout.prefix()
        + (syncReplicas > 0 ? ", syncReplicas=" + syncReplicas + "/" + syncTimeout : "")
        + (readLegacyRecords ? "" : ", readLegacyRecords=false")
        + "}";
  }

  // ---- script execution
  // ---------------------------------------------------------------------------------

  /**
   * Runs script {@code s} on the record {@code name} of {@code key}; any failure is thrown as an
   * {@code IdempotencyStoreException} whose message leaves out the command's arguments (see {@link
   * RedactedFailure}).
   */
  private <R> R run(RecordScript s, RecordKey key, String name, List<Object> keys, Object... args) {
    try {
      return runLoading(s, name, keys, args);
    } catch (RuntimeException e) {
      throw RedactedFailure.of(s.name(), key, sent(key, name), e);
    }
  }

  /** The texts a command on the record carries that hold the key, left out of failure messages. */
  private List<String> sent(RecordKey key, String name) {
    return List.of(
        name,
        RecordLayout.channelOf(name),
        RecordLayout.releasedOf(name),
        layout.legacyName(key),
        key.key());
  }

  /**
   * The record and, when legacy records are read, its name in the earlier layout (the same cluster
   * slot).
   */
  private List<Object> withLegacy(RecordKey key, String name) {
    return readLegacyRecords ? List.of(name, layout.legacyName(key)) : List.of(name);
  }

  /**
   * Writes the scope text of {@code key} under its digest into {@code <prefix>scopes} (HSETNX),
   * once per scope and store, so that operators can read which scope a record name stands for; a
   * digest already taken by another scope is refused, as the two scopes would share records.
   */
  private void registerScope(RecordKey key, String name) {
    String scope = key.scope();
    if (registeredScopes.containsKey(scope)) {
      return;
    }
    String digest = RecordLayout.scopeDigest(scope);
    String known;
    try {
      RMap<String, String> scopes = redisson.getMap(layout.scopesName(), StringCodec.INSTANCE);
      known = scopes.fastPutIfAbsent(digest, scope) ? scope : scopes.get(digest);
    } catch (RuntimeException e) {
      throw RedactedFailure.of(
          "HSETNX of the scope into " + layout.scopesName(), key, sent(key, name), e);
    }
    if (known != null && !known.equals(scope)) {
      throw new IllegalStateException(
          "scopes '"
              + scope
              + "' and '"
              + known
              + "' have the same digest "
              + digest
              + " in the record names under prefix '"
              + layout.prefix()
              + "': give one of them another scope name");
    }
    if (registeredScopes.size() >= MAX_REGISTERED_SCOPES) {
      registeredScopes.clear();
    }
    registeredScopes.put(scope, Boolean.TRUE);
  }

  private <R> R runLoading(RecordScript s, String name, List<Object> keys, Object... args) {
    try {
      return execute(s, name, keys, args);
    } catch (RuntimeException e) {
      if (!isNoScript(e)) {
        throw e;
      }
      log.info(
          "Redis no longer knows script {} (NOSCRIPT: restart, failover or SCRIPT FLUSH); loading"
              + " it again",
          s);
      loadScript(s);
      return execute(s, name, keys, args);
    }
  }

  @SuppressWarnings("unchecked")
  private <R> R execute(RecordScript s, String name, List<Object> keys, Object... args) {
    RScript.ReturnType type =
        s == RecordScript.CLAIM || s == RecordScript.READ || s == RecordScript.PEEK
            ? RScript.ReturnType.LIST
            : RScript.ReturnType.LONG;
    if (syncReplicas == 0 || !s.writes()) {
      return script.evalSha(name, RScript.Mode.READ_WRITE, s.sha(), type, keys, args);
    }
    RBatch batch = redisson.createBatch(BatchOptions.defaults().sync(syncReplicas, syncTimeout));
    batch
        .getScript(ByteArrayCodec.INSTANCE)
        .evalShaAsync(name, RScript.Mode.READ_WRITE, s.sha(), type, keys, args);
    BatchResult<?> result = batch.execute();
    if (result.getSyncedSlaves() < syncReplicas) {
      log.warn(
          "{} of record {} reached {} of {} replicas within {}; a failover now could lose it",
          s,
          RecordKey.redact(name),
          result.getSyncedSlaves(),
          syncReplicas,
          syncTimeout);
    }
    return (R) result.getResponses().get(0);
  }

  private void loadScript(RecordScript s) {
    String sha = script.scriptLoad(s.source());
    if (!s.sha().equalsIgnoreCase(sha)) {
      throw new IllegalStateException(
          "Redis answered SCRIPT LOAD of " + s + " with digest " + sha + " instead of " + s.sha());
    }
  }

  private void loadScripts() {
    for (RecordScript s : RecordScript.values()) {
      loadScript(s);
    }
  }

  static boolean isNoScript(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof RedisNoScriptException) {
        return true;
      }
      String m = t.getMessage();
      if (m != null
          && (m.startsWith("NOSCRIPT")
              || m.contains(" NOSCRIPT ")
              || m.contains("NOSCRIPT No matching"))) {
        return true;
      }
    }
    return false;
  }

  // ---- decoding
  // ---------------------------------------------------------------------------------------

  private IdempotencyRecord toRecord(RecordKey key, List<Object> reply, int from) {
    String status = text(reply.get(from));
    String owner = reply.get(from + 1) == null ? null : text(reply.get(from + 1));
    String fingerprint = reply.get(from + 2) == null ? null : text(reply.get(from + 2));
    byte[] outcome = (byte[]) reply.get(from + 3);
    Duration left = Duration.ofMillis(Math.max(0, asLong(reply.get(from + 4))));
    if ("C".equals(status)) {
      if (outcome == null) {
        throw notARecord(key, "a completed hash without an outcome");
      }
      return IdempotencyRecord.completed(key, owner, fingerprint, outcome, left);
    }
    if ("P".equals(status) && owner != null) {
      return IdempotencyRecord.inProgress(key, owner, fingerprint, left);
    }
    throw notARecord(key, status.startsWith("?") ? status.substring(1) : "an unknown status");
  }

  /**
   * The failure of a call whose record's name holds {@code what}, which is not a record of this
   * store: an {@link IdempotencyOutcomeException}, which the executor never treats as a store
   * outage (so not even fail-open runs the method over what may be someone's record).
   */
  private IdempotencyOutcomeException notARecord(RecordKey key, String what) {
    return new IdempotencyOutcomeException(
        "Redis holds "
            + what
            + " under the name of this record, which is not a record of this store, so the call"
            + " did not run: is another program writing under the key prefix '"
            + layout.prefix()
            + "'? Look at the value, then delete it (RedissonIdempotencyStore.delete) once running"
            + " the call again is safe",
        key.scope(),
        key.redactedKey(),
        null);
  }

  private static String text(Object value) {
    if (value instanceof byte[] b) {
      return new String(b, StandardCharsets.UTF_8);
    }
    return String.valueOf(value);
  }

  private static long asLong(Object value) {
    if (value instanceof Number n) {
      return n.longValue();
    }
    return Long.parseLong(text(value));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void requireOwner(String ownerToken) {
    if (ownerToken == null || ownerToken.isEmpty()) {
      throw new IllegalArgumentException("ownerToken must not be null or empty");
    }
  }

  private static byte[] millis(String what, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(what + " must be a positive duration, was " + d);
    }
    long ms;
    try {
      ms = Math.max(1, d.toMillis() + (d.toNanosPart() % 1_000_000 == 0 ? 0 : 1));
    } catch (ArithmeticException e) {
      ms = Long.MAX_VALUE / 2;
    }
    return bytes(Long.toString(ms));
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
    private final boolean shutdownClientOnClose;
    private final boolean readLegacyRecords;

    private Builder(
        RedissonClient redisson,
        String keyPrefix,
        int syncReplicas,
        Duration syncTimeout,
        boolean shutdownClientOnClose,
        boolean readLegacyRecords) {
      this.redisson = redisson;
      this.keyPrefix = keyPrefix;
      this.syncReplicas = syncReplicas;
      this.syncTimeout = syncTimeout;
      this.shutdownClientOnClose = shutdownClientOnClose;
      this.readLegacyRecords = readLegacyRecords;
    }

    /**
     * The prefix of every record name and channel, default {@value
     * RedissonIdempotencyStore#DEFAULT_KEY_PREFIX}. Give each application (or environment sharing
     * one Redis) its own. At most 100 characters, no braces (the store places the cluster hash tag
     * itself); may be empty.
     */
    public Builder keyPrefix(String keyPrefix) {
      RecordLayout.checkPrefix(keyPrefix);
      return new Builder(
          redisson, keyPrefix, syncReplicas, syncTimeout, shutdownClientOnClose, readLegacyRecords);
    }

    /**
     * After each write (claim, complete, release, renew), waits with Redis {@code WAIT} until
     * {@code count} replicas acknowledged it or {@code timeout} passed; see the class javadoc for
     * what this protects against. Off by default.
     *
     * @param count at least 1
     * @param timeout positive; when it passes first, a warning is logged and the call still
     *     succeeds
     */
    public Builder syncReplicas(int count, Duration timeout) {
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
      return new Builder(
          redisson, keyPrefix, count, timeout, shutdownClientOnClose, readLegacyRecords);
    }

    /**
     * Whether {@link RedissonIdempotencyStore#close()} shuts the Redisson client down; default
     * {@code false}, because the client is yours.
     */
    public Builder shutdownClientOnClose(boolean shutdown) {
      return new Builder(
          redisson, keyPrefix, syncReplicas, syncTimeout, shutdown, readLegacyRecords);
    }

    /**
     * Whether claims, reads, waits and deletes also find records written in the layout of earlier
     * versions (one hash per record named after the whole scope; see the class javadoc); default
     * {@code true}. Such a record is replayed, waited for and deleted as before; new records are
     * always written in the compact layout. Turn it off once every record written before the
     * upgrade has expired (the longest ttl after the upgrade): each claim on a fresh key then looks
     * up one Redis key instead of two and sends a shorter command.
     */
    public Builder readLegacyRecords(boolean read) {
      return new Builder(
          redisson, keyPrefix, syncReplicas, syncTimeout, shutdownClientOnClose, read);
    }

    /**
     * Builds the store and loads its scripts into Redis ({@code SCRIPT LOAD} on every master), so a
     * server that cannot be reached fails here, within the client's timeouts.
     */
    public RedissonIdempotencyStore build() {
      RedissonIdempotencyStore store = new RedissonIdempotencyStore(this);
      store.loadScripts();
      return store;
    }
  }

  /** For tests in this package: the record names in use. */
  RecordLayout layout() {
    return layout;
  }
}
