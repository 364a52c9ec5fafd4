package dev.idempotent.nats;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.nats.internal.BucketAccess;
import dev.idempotent.nats.internal.BucketSetup;
import dev.idempotent.nats.internal.Entry;
import dev.idempotent.nats.internal.KeyNames;
import dev.idempotent.nats.internal.RecordFormat;
import dev.idempotent.nats.internal.ServerClock;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * An {@link IdempotencyStore} in a NATS JetStream key-value bucket, through a jnats {@link
 * Connection}; also its non-blocking face, {@link AsyncIdempotencyStore}.
 *
 * <pre>{@code
 * IdempotencyStore store = NatsIdempotencyStore.builder(connection)
 *     .bucket("idempotent")                // optional, default "idempotent"
 *     .longestTtl(Duration.ofHours(24))    // optional: the bucket's max age must exceed it
 *     .build();
 * }</pre>
 *
 * <h2>How records are kept</h2>
 *
 * One bucket per store, one entry per record, named {@code r.<scope id>.<base64url key>} (see
 * {@link KeyNames}: no character a caller sends reaches a subject as it is). The value is a record
 * of format version 1 ({@link RecordFormat}; byte by byte in {@code docs/stores/nats.md}): the
 * owner token, the fingerprint, the lease or ttl, and the outcome. The entry's revision (its stream
 * sequence) is the fencing token: a claim is a write that succeeds only when the key has no entry
 * (the key-value {@code create}); on a taken key the store reads the entry and, when it is a delete
 * marker, an ended lease or an ended ttl, writes its claim conditional on that revision (the
 * key-value {@code update}); complete, renew, release and {@link #delete} read the entry, check the
 * owner token and the state, and write conditional on the revision they read. Any write in between
 * changes the revision and the conditional write is refused, so a holder whose lease ended can
 * never overwrite a newer holder's record. An outcome too large for one entry is written first in
 * chunks of its own ({@code o.<stem>.<n>}), and the record then names them with their SHA-256.
 *
 * <h2>Time</h2>
 *
 * NATS 2.9 has no expiry per key. A record keeps its lease or ttl as a duration, and it ends that
 * long after the timestamp the server gave the entry. The server's current time is learnt from the
 * timestamp of an entry the store writes itself ({@link ServerClock}), so leases and ttls are
 * judged by the server's clock alone, never this host's. The bucket's max age removes entries
 * physically: it must exceed the longest ttl, which {@link Builder#build()} checks.
 *
 * <h2>Waiting</h2>
 *
 * {@link #awaitChange} and {@link #awaitChangeAsync} subscribe to the record's subject, then read
 * the record; they end on the first write to the subject that could succeed (one conditional on the
 * revision read), when the holder's lease ends, or after {@code maxWait}. A competitor's claim that
 * the server refuses wakes no one. No thread waits and nothing is polled.
 *
 * <p>Thread-safe. The non-blocking methods never block the calling thread: they send requests on
 * the connection and their stages complete on a small pool of the store's own ({@code
 * idempotent-nats-*}), never on the connection's reader thread. {@link #close()} closes the
 * connection only when the store owns it.
 */
public final class NatsIdempotencyStore implements IdempotencyStore, AsyncIdempotencyStore {
  /** The bucket used unless {@link Builder#bucket(String)} says otherwise. */
  public static final String DEFAULT_BUCKET = "idempotent";

  /** How long each request may take, unless {@link Builder#timeout(Duration)} says otherwise. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** The max age of a bucket the store creates, unless {@link Builder#maxAge} says otherwise. */
  public static final Duration DEFAULT_MAX_AGE = Duration.ofHours(48);

  /** The largest outcome recorded, unless {@link Builder#maxOutcomeBytes(int)} says otherwise. */
  public static final int DEFAULT_MAX_OUTCOME_BYTES = 16 * 1024 * 1024;

  /**
   * How much longer than the longest ttl (or lease) the bucket must keep an entry: the time an
   * outcome's chunks may be written before its record.
   */
  public static final Duration MAX_AGE_MARGIN = Duration.ofMinutes(1);

  /** Room left in each entry for the message's headers. */
  static final int HEADER_ROOM = 1024;

  private static final int MAX_ATTEMPTS = 16;
  private static final long MAX_MILLIS = Duration.ofDays(365L * 100).toMillis();
  private static final Pattern SUBJECT = Pattern.compile("\\$KV\\.[^\\s\"']*");

  private final Connection connection;
  private final boolean closeConnection;
  private final BucketAccess bucket;
  private final KeyNames names;
  private final ServerClock clock;
  private final Duration maxAge;
  private final int entryLimit;
  private final int maxOutcomeBytes;
  private final ExecutorService callbacks;
  private final ScheduledExecutorService timers;
  private final Dispatcher dispatcher;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** The waits in progress, ended by {@link #close()}. */
  private final java.util.Set<CompletableFuture<Void>> waits =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private NatsIdempotencyStore(
      Builder b, BucketAccess bucket, BucketSetup.Bucket info, ServerClock clock) {
    this.connection = b.connection;
    this.closeConnection = b.closeConnectionOnClose;
    this.bucket = bucket;
    this.names = bucket.names();
    this.clock = clock;
    this.maxAge = info.maxAge();
    long serverLimit = b.connection.getServerInfo().getMaxPayload();
    long limit = serverLimit > 0 ? serverLimit : 1024 * 1024;
    if (info.maxMessageSize() > 0) {
      limit = Math.min(limit, info.maxMessageSize());
    }
    this.entryLimit = (int) Math.max(4096, limit - HEADER_ROOM);
    this.maxOutcomeBytes = b.maxOutcomeBytes;
    AtomicInteger n = new AtomicInteger();
    ThreadFactory threads =
        r -> {
          Thread t = new Thread(r, "idempotent-nats-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    this.callbacks = Executors.newFixedThreadPool(b.callbackThreads, threads);
    this.timers = Executors.newSingleThreadScheduledExecutor(threads);
    this.dispatcher = b.connection.createDispatcher();
  }

  /** A builder for a store on {@code connection}, which stays the caller's to close. */
  public static Builder builder(Connection connection) {
    return new Builder(
        Objects.requireNonNull(connection, "connection"),
        DEFAULT_BUCKET,
        DEFAULT_TIMEOUT,
        DEFAULT_MAX_AGE,
        IdempotencyConfig.DEFAULT_TTL,
        1,
        true,
        DEFAULT_MAX_OUTCOME_BYTES,
        2,
        false);
  }

  // ---- the blocking face: the non-blocking operations, awaited

  @Override
  public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    return await(claimFuture(key, ownerToken, fingerprint, lease), key, "claim");
  }

  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    return await(completeFuture(key, ownerToken, outcome, ttl), key, "complete");
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    return await(releaseFuture(key, ownerToken), key, "release");
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    return await(renewFuture(key, ownerToken, lease), key, "renew");
  }

  /** All renewals of the batch at once, pipelined on the connection, then awaited. */
  @Override
  public boolean[] renewAll(List<HeldClaim> claims, Duration lease) {
    return await(renewAllFuture(claims, lease), claims.get(0).key(), "renewAll");
  }

  /**
   * Reads the entry and writes a delete marker conditional on its revision, whatever the record's
   * state and owner: a waiter wakes as on a release. The chunks of a large outcome are left to the
   * bucket's max age.
   */
  @Override
  public boolean delete(RecordKey key) {
    Objects.requireNonNull(key, "key");
    return await(deleteFuture(key, names.recordSubject(key), 0), key, "delete");
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    return await(readFuture(key), key, "read");
  }

  @Override
  public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
    CompletableFuture<Void> wait = awaitFuture(key, maxWait);
    try {
      wait.get();
    } catch (InterruptedException e) {
      wait.cancel(false);
      throw e;
    } catch (ExecutionException e) {
      throw failure(e.getCause(), key, "awaitChange");
    }
  }

  // ---- the non-blocking face

  @Override
  public CompletionStage<ClaimResult> claimAsync(
      RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    return hop(() -> claimFuture(key, ownerToken, fingerprint, lease), key, "claim");
  }

  @Override
  public CompletionStage<Boolean> completeAsync(
      RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    return hop(() -> completeFuture(key, ownerToken, outcome, ttl), key, "complete");
  }

  @Override
  public CompletionStage<Boolean> releaseAsync(RecordKey key, String ownerToken) {
    return hop(() -> releaseFuture(key, ownerToken), key, "release");
  }

  @Override
  public CompletionStage<Boolean> renewAsync(RecordKey key, String ownerToken, Duration lease) {
    return hop(() -> renewFuture(key, ownerToken, lease), key, "renew");
  }

  /**
   * Every claim's renewal at once, pipelined on the connection: a read and a conditional write
   * each, two round trips for the whole batch.
   */
  @Override
  public CompletionStage<boolean[]> renewAllAsync(List<HeldClaim> claims, Duration lease) {
    return hop(() -> renewAllFuture(claims, lease), claims.get(0).key(), "renewAll");
  }

  @Override
  public CompletionStage<Optional<IdempotencyRecord>> readAsync(RecordKey key) {
    return hop(() -> readFuture(key), key, "read");
  }

  @Override
  public CompletionStage<Void> awaitChangeAsync(RecordKey key, Duration maxWait) {
    return hop(() -> awaitFuture(key, maxWait), key, "awaitChange");
  }

  /**
   * {@value KeyNames#MAX_KEY_LENGTH}: longer scopes or keys are replaced by their digest before
   * they reach the store.
   */
  @Override
  public int maxKeyLength() {
    return KeyNames.MAX_KEY_LENGTH;
  }

  /** The bucket's name. */
  public String bucket() {
    return names.bucket();
  }

  /**
   * The largest value one entry takes here: smaller of the server's max payload and the bucket's.
   */
  public int entryLimit() {
    return entryLimit;
  }

  /**
   * Ends the waits still pending, stops the store's threads and closes the connection when the
   * store owns it. Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      for (CompletableFuture<Void> w : List.copyOf(waits)) {
        w.complete(null);
      }
      try {
        connection.closeDispatcher(dispatcher);
      } catch (RuntimeException e) {
        // the connection may be closed already
      }
      timers.shutdownNow();
      callbacks.shutdown();
      if (closeConnection) {
        try {
          connection.close();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  @Override
  public String toString() {
    return "NatsIdempotencyStore{bucket="
        + names.bucket()
        + ", maxAge="
        + (maxAge == null ? "unlimited" : maxAge)
        + ", entryLimit="
        + entryLimit
        + "}";
  }

  // ---- the operations

  private CompletableFuture<ClaimResult> claimFuture(
      RecordKey key, String owner, String fingerprint, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "ownerToken");
    byte[] value = RecordFormat.claim(owner, fingerprint, heldMillis("lease", lease));
    return claimAttempt(key, names.recordSubject(key), value, 0, false, 0);
  }

  private CompletableFuture<ClaimResult> claimAttempt(
      RecordKey key, String subject, byte[] value, long expected, boolean takeover, int attempt) {
    return bucket
        .writeIf(subject, value, expected)
        .thenCompose(
            revision -> {
              if (revision >= 0) {
                return CompletableFuture.completedFuture(
                    takeover ? ClaimResult.tookOver() : ClaimResult.acquired());
              }
              if (attempt >= MAX_ATTEMPTS) {
                throw contention(key, "claim");
              }
              return bucket
                  .latest(subject)
                  .thenCompose(
                      e -> {
                        if (e == null) {
                          return claimAttempt(key, subject, value, 0, false, attempt + 1);
                        }
                        if (e.deleted()) {
                          return claimAttempt(
                              key, subject, value, e.revision(), false, attempt + 1);
                        }
                        RecordFormat.Value v = decode(key, e);
                        if (ended(e, v)) {
                          return claimAttempt(
                              key, subject, value, e.revision(), v.inProgress(), attempt + 1);
                        }
                        return record(key, e, v).thenApply(ClaimResult::existing);
                      });
            });
  }

  private CompletableFuture<Boolean> completeFuture(
      RecordKey key, String owner, byte[] outcome, Duration ttl) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "ownerToken");
    Objects.requireNonNull(outcome, "outcome");
    long ttlMillis;
    try {
      ttlMillis = heldMillis("ttl", ttl);
    } catch (IllegalStateException e) {
      return CompletableFuture.failedFuture(
          OutcomeNotRecordedException.releasingTheKey(
              e.getMessage() + " (" + key.scope() + "/" + key.redactedKey() + ")", null));
    }
    if (outcome.length > maxOutcomeBytes) {
      return CompletableFuture.failedFuture(
          OutcomeNotRecordedException.releasingTheKey(
              "the outcome of "
                  + key.scope()
                  + "/"
                  + key.redactedKey()
                  + " is "
                  + outcome.length
                  + " bytes, more than the NATS store records ("
                  + maxOutcomeBytes
                  + " bytes, NatsIdempotencyStore.Builder.maxOutcomeBytes or"
                  + " idempotent.nats.max-outcome-size); each entry holds at most "
                  + entryLimit
                  + " bytes (the server's max_payload and the bucket's max value size), larger"
                  + " outcomes are split into chunks",
              null));
    }
    String subject = names.recordSubject(key);
    String recordKey = KeyNames.recordKey(key);
    byte[] sha = RecordFormat.sha256(outcome);
    // the fingerprint is the claim's: the record value is made once the claim is read
    CompletableFuture<Void> chunksWritten;
    Function<String, byte[]> completed;
    boolean inline =
        (long) RecordFormat.completedOverhead(owner, null) + outcome.length + 2 * 1024
            <= entryLimit;
    if (inline) {
      byte[] copy = outcome.clone();
      chunksWritten = CompletableFuture.completedFuture(null);
      completed = fp -> RecordFormat.completedInline(owner, fp, ttlMillis, copy);
    } else {
      String stem = KeyNames.chunkStem(recordKey, owner);
      int chunks = (outcome.length + entryLimit - 1) / entryLimit;
      List<CompletableFuture<Long>> writes = new ArrayList<>(chunks);
      for (int i = 0; i < chunks; i++) {
        byte[] part =
            Arrays.copyOfRange(
                outcome, i * entryLimit, Math.min(outcome.length, (i + 1) * entryLimit));
        writes.add(bucket.write(names.chunkSubject(stem, i), part));
      }
      chunksWritten = CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new));
      int length = outcome.length;
      completed =
          fp -> RecordFormat.completedChunked(owner, fp, ttlMillis, chunks, length, sha, stem);
    }
    return chunksWritten.thenCompose(
        done ->
            ownerWrite(
                key,
                subject,
                owner,
                (e, v) -> bucket.writeIf(subject, completed.apply(v.fingerprint()), e.revision()),
                v -> owner.equals(v.owner()) && sameOutcome(v, outcome, sha),
                0));
  }

  private static boolean sameOutcome(RecordFormat.Value v, byte[] outcome, byte[] sha) {
    return v.kind() == RecordFormat.COMPLETED_INLINE
        ? Arrays.equals(v.inlineOutcome(), outcome)
        : v.outcomeLength() == outcome.length && Arrays.equals(v.outcomeSha256(), sha);
  }

  private CompletableFuture<Boolean> releaseFuture(RecordKey key, String owner) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "ownerToken");
    String subject = names.recordSubject(key);
    return ownerWrite(
        key, subject, owner, (e, v) -> bucket.deleteIf(subject, e.revision()), v -> false, 0);
  }

  private CompletableFuture<Boolean> renewFuture(RecordKey key, String owner, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "ownerToken");
    long leaseMillis = heldMillis("lease", lease);
    String subject = names.recordSubject(key);
    return ownerWrite(
        key,
        subject,
        owner,
        (e, v) ->
            bucket.writeIf(
                subject, RecordFormat.claim(owner, v.fingerprint(), leaseMillis), e.revision()),
        v -> false,
        0);
  }

  private CompletableFuture<boolean[]> renewAllFuture(List<HeldClaim> claims, Duration lease) {
    heldMillis("lease", lease);
    boolean[] renewed = new boolean[claims.size()];
    CompletableFuture<?>[] each = new CompletableFuture<?>[renewed.length];
    for (int i = 0; i < renewed.length; i++) {
      int at = i;
      HeldClaim c = claims.get(i);
      each[i] = renewFuture(c.key(), c.ownerToken(), lease).thenAccept(r -> renewed[at] = r);
    }
    return CompletableFuture.allOf(each).thenApply(done -> renewed);
  }

  /** A write that an owner may make: read, check owner, state and lease, write on the revision. */
  private interface OwnerWrite {
    CompletableFuture<Long> write(Entry entry, RecordFormat.Value value);
  }

  /**
   * Reads the record; when it is a live claim of {@code owner}, makes {@code write} conditional on
   * its revision, and reads again when another write came first. A record already completed answers
   * {@code repeat} (an exact repeat of a completion applied before).
   */
  private CompletableFuture<Boolean> ownerWrite(
      RecordKey key,
      String subject,
      String owner,
      OwnerWrite write,
      java.util.function.Predicate<RecordFormat.Value> repeat,
      int attempt) {
    return bucket
        .latest(subject)
        .thenCompose(
            e -> {
              if (e == null || e.deleted()) {
                return CompletableFuture.completedFuture(false);
              }
              RecordFormat.Value v = decode(key, e);
              if (ended(e, v)) {
                return CompletableFuture.completedFuture(false);
              }
              if (!v.inProgress()) {
                return CompletableFuture.completedFuture(repeat.test(v));
              }
              if (!owner.equals(v.owner())) {
                return CompletableFuture.completedFuture(false);
              }
              return write
                  .write(e, v)
                  .thenCompose(
                      revision -> {
                        if (revision >= 0) {
                          return CompletableFuture.completedFuture(true);
                        }
                        if (attempt >= MAX_ATTEMPTS) {
                          throw contention(key, "write");
                        }
                        return ownerWrite(key, subject, owner, write, repeat, attempt + 1);
                      });
            });
  }

  private CompletableFuture<Boolean> deleteFuture(RecordKey key, String subject, int attempt) {
    return bucket
        .latest(subject)
        .thenCompose(
            e -> {
              if (e == null || e.deleted()) {
                return CompletableFuture.completedFuture(false);
              }
              RecordFormat.Value v;
              try {
                v = RecordFormat.decode(e.value());
              } catch (IllegalArgumentException notARecord) {
                v = null; // not a record of this format: deleted all the same
              }
              if (v != null && ended(e, v)) {
                return CompletableFuture.completedFuture(false);
              }
              return bucket
                  .deleteIf(subject, e.revision())
                  .thenCompose(
                      revision -> {
                        if (revision >= 0) {
                          return CompletableFuture.completedFuture(true);
                        }
                        if (attempt >= MAX_ATTEMPTS) {
                          throw contention(key, "delete");
                        }
                        return deleteFuture(key, subject, attempt + 1);
                      });
            });
  }

  private CompletableFuture<Optional<IdempotencyRecord>> readFuture(RecordKey key) {
    Objects.requireNonNull(key, "key");
    return bucket
        .latest(names.recordSubject(key))
        .thenCompose(
            e -> {
              if (e == null || e.deleted()) {
                return CompletableFuture.completedFuture(Optional.empty());
              }
              RecordFormat.Value v = decode(key, e);
              if (ended(e, v)) {
                return CompletableFuture.completedFuture(Optional.empty());
              }
              return record(key, e, v).thenApply(Optional::of);
            });
  }

  // ---- waiting

  /** What a waiter knows of the record while it waits; guarded by itself. */
  private static final class Wait {
    final CompletableFuture<Void> done = new CompletableFuture<>();

    /** The revision read, or, after a renewal, the lowest the record can have now; -1 unread. */
    long revision = -1;

    /** The holder's owner token, once read. */
    String owner;

    /** The highest revision that messages heard before the read expected; -1 none. */
    long earlyExpected = -1;

    ScheduledFuture<?> leaseEnd;
  }

  private CompletableFuture<Void> awaitFuture(RecordKey key, Duration maxWait) {
    Objects.requireNonNull(key, "key");
    long waitMillis = Math.max(0, Math.min(MAX_MILLIS, maxWait.toMillis()));
    Wait wait = new Wait();
    if (waitMillis == 0) {
      wait.done.complete(null);
      return wait.done;
    }
    String subject = names.recordSubject(key);
    waits.add(wait.done);
    wait.done.whenComplete((v, e) -> waits.remove(wait.done));
    if (closed.get()) {
      wait.done.complete(null);
      return wait.done;
    }
    Subscription sub;
    try {
      sub = dispatcher.subscribe(subject, m -> heard(wait, m));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    ScheduledFuture<?> bound =
        timers.schedule(() -> wait.done.complete(null), waitMillis, TimeUnit.MILLISECONDS);
    wait.done.whenComplete(
        (v, e) -> {
          bound.cancel(false);
          synchronized (wait) {
            if (wait.leaseEnd != null) {
              wait.leaseEnd.cancel(false);
            }
          }
          try {
            dispatcher.unsubscribe(sub);
          } catch (RuntimeException ignored) {
            // the connection is closing
          }
        });
    // the subscription reaches the server before this read (one connection keeps the order), so
    // every write after the read reaches the handler
    bucket
        .latest(subject)
        .whenComplete(
            (e, failure) -> {
              if (failure != null || e == null || e.deleted()) {
                wait.done.complete(null);
                return;
              }
              RecordFormat.Value v;
              try {
                v = RecordFormat.decode(e.value());
              } catch (IllegalArgumentException notARecord) {
                wait.done.complete(null);
                return;
              }
              long left = e.serverMillis() + v.durationMillis() - clock.nowMillis();
              if (!v.inProgress() || left <= 0) {
                wait.done.complete(null);
                return;
              }
              boolean wake;
              synchronized (wait) {
                wait.revision = e.revision();
                wait.owner = v.owner();
                wake = wait.earlyExpected >= e.revision();
                if (!wake) {
                  armLeaseEnd(wait, Math.min(left, v.durationMillis()));
                }
              }
              if (wake) {
                wait.done.complete(null);
              }
            });
    return wait.done;
  }

  /**
   * Ends the wait when the holder's lease ends ({@code millis} from now). Holds the wait's lock.
   */
  private void armLeaseEnd(Wait wait, long millis) {
    if (wait.leaseEnd != null) {
      wait.leaseEnd.cancel(false);
    }
    try {
      wait.leaseEnd =
          timers.schedule(() -> wait.done.complete(null), millis + 1, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      wait.done.complete(null);
    }
  }

  /**
   * A message on a waited-for record's subject. Every write of the store is conditional on the
   * revision it expects: one that expects less than the waiter's revision (a competitor's claim of
   * a taken key expects 0) is refused by the server and ignored; one that expects the waiter's
   * revision or a later one may change the record and ends the wait, unless it is the holder's
   * renewal, after which the record's revision is at least one more than the renewal expected.
   */
  private void heard(Wait wait, Message m) {
    String header =
        m.getHeaders() == null ? null : m.getHeaders().getFirst(BucketAccess.EXPECTED_REVISION);
    long expected;
    try {
      expected = header == null ? Long.MAX_VALUE : Long.parseLong(header);
    } catch (NumberFormatException e) {
      expected = Long.MAX_VALUE;
    }
    boolean wake;
    synchronized (wait) {
      if (wait.revision < 0) {
        wait.earlyExpected = Math.max(wait.earlyExpected, expected);
        wake = false;
      } else if (expected < wait.revision) {
        wake = false;
      } else {
        RecordFormat.Value renewal = renewalBy(wait.owner, m);
        if (renewal != null && expected != Long.MAX_VALUE) {
          wait.revision = expected + 1;
          armLeaseEnd(wait, renewal.durationMillis());
          wake = false;
        } else {
          wake = true;
        }
      }
    }
    if (wake) {
      wait.done.complete(null);
    }
  }

  /** The claim {@code m} writes when it is a renewal by {@code owner}, else {@code null}. */
  private static RecordFormat.Value renewalBy(String owner, Message m) {
    if (m.getHeaders() != null && m.getHeaders().getFirst("KV-Operation") != null) {
      return null;
    }
    try {
      RecordFormat.Value v = RecordFormat.decode(m.getData());
      return v.inProgress() && v.owner().equals(owner) ? v : null;
    } catch (IllegalArgumentException notAClaim) {
      return null;
    }
  }

  // ---- shared

  /** Whether the record's lease or ttl has ended on the server's clock. */
  private boolean ended(Entry e, RecordFormat.Value v) {
    return e.serverMillis() + v.durationMillis() <= clock.nowMillis();
  }

  private RecordFormat.Value decode(RecordKey key, Entry e) {
    try {
      return RecordFormat.decode(e.value());
    } catch (IllegalArgumentException notARecord) {
      throw new IdempotencyOutcomeException(
          "the NATS bucket '"
              + names.bucket()
              + "' holds an entry under this record's name that is not a record of this store's"
              + " format ("
              + notARecord.getMessage()
              + "): it is left as it is until deleted",
          key.scope(),
          key.redactedKey(),
          null);
    }
  }

  /** The record of an entry, with its outcome read from its chunks when it has them. */
  private CompletableFuture<IdempotencyRecord> record(
      RecordKey key, Entry e, RecordFormat.Value v) {
    // the clock's lower bound may lag the entry's stamp by a round trip: never more than was given
    Duration left =
        Duration.ofMillis(
            Math.min(
                v.durationMillis(), e.serverMillis() + v.durationMillis() - clock.nowMillis()));
    if (v.inProgress()) {
      return CompletableFuture.completedFuture(
          IdempotencyRecord.inProgress(key, v.owner(), v.fingerprint(), left));
    }
    if (v.kind() == RecordFormat.COMPLETED_INLINE) {
      return CompletableFuture.completedFuture(
          IdempotencyRecord.completed(key, v.owner(), v.fingerprint(), v.inlineOutcome(), left));
    }
    List<CompletableFuture<Entry>> parts = new ArrayList<>(v.chunks());
    for (int i = 0; i < v.chunks(); i++) {
      parts.add(bucket.latest(names.chunkSubject(v.chunkStem(), i)));
    }
    return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              byte[] outcome = new byte[v.outcomeLength()];
              int at = 0;
              for (int i = 0; i < parts.size(); i++) {
                Entry part = parts.get(i).join();
                if (part == null || part.deleted() || at + part.value().length > outcome.length) {
                  throw chunkMissing(key, i, v.chunks());
                }
                System.arraycopy(part.value(), 0, outcome, at, part.value().length);
                at += part.value().length;
              }
              if (at != outcome.length
                  || !Arrays.equals(RecordFormat.sha256(outcome), v.outcomeSha256())) {
                throw chunkMissing(key, -1, v.chunks());
              }
              return IdempotencyRecord.completed(key, v.owner(), v.fingerprint(), outcome, left);
            });
  }

  private IdempotencyOutcomeException chunkMissing(RecordKey key, int index, int chunks) {
    return new IdempotencyOutcomeException(
        "the recorded outcome's "
            + (index < 0
                ? "chunks do not match its SHA-256"
                : "chunk " + index + " of " + chunks + " is missing")
            + " in the NATS bucket '"
            + names.bucket()
            + "' (removed by the bucket's max age, or by hand)",
        key.scope(),
        key.redactedKey(),
        null);
  }

  /**
   * A lease or ttl in whole milliseconds, rounded up.
   *
   * @throws IllegalArgumentException when it is not positive
   * @throws IllegalStateException when the bucket would remove the entry before it ends
   */
  private long heldMillis(String what, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(what + " must be a positive duration, was " + d);
    }
    if (maxAge != null && d.plus(MAX_AGE_MARGIN).compareTo(maxAge) > 0) {
      throw new IllegalStateException(
          what
              + " "
              + d
              + " does not fit the NATS bucket '"
              + names.bucket()
              + "': its max age "
              + maxAge
              + " would remove the record before it ends; the bucket's max age must exceed the"
              + " longest ttl and lease by "
              + MAX_AGE_MARGIN);
    }
    try {
      long ms = d.toMillis() + (d.toNanosPart() % 1_000_000 == 0 ? 0 : 1);
      return Math.min(Math.max(1, ms), MAX_MILLIS);
    } catch (ArithmeticException e) {
      return MAX_MILLIS;
    }
  }

  private IllegalStateException contention(RecordKey key, String op) {
    return new IllegalStateException(
        "NATS "
            + op
            + " of "
            + key.scope()
            + "/"
            + key.redactedKey()
            + " met another write "
            + MAX_ATTEMPTS
            + " times in a row");
  }

  /** Runs {@code op} and completes the stage on the store's own threads. */
  private <T> CompletableFuture<T> hop(
      java.util.function.Supplier<CompletableFuture<T>> op, RecordKey key, String what) {
    CompletableFuture<T> out = new CompletableFuture<>();
    CompletableFuture<T> started = start(op);
    started.whenComplete(
        (v, e) -> {
          Runnable finish =
              () -> {
                if (e != null) {
                  out.completeExceptionally(failure(e, key, what));
                } else {
                  out.complete(v);
                }
              };
          try {
            callbacks.execute(finish);
          } catch (RejectedExecutionException closing) {
            finish.run();
          }
        });
    out.whenComplete(
        (v, e) -> {
          if (out.isCancelled()) {
            started.cancel(false);
          }
        });
    return out;
  }

  private static <T> CompletableFuture<T> start(
      java.util.function.Supplier<CompletableFuture<T>> op) {
    try {
      return op.get();
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private <T> T await(CompletableFuture<T> f, RecordKey key, String what) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      f.cancel(false);
      Thread.currentThread().interrupt();
      throw new IdempotencyStoreException(
          "interrupted while waiting for NATS (" + what + ")", key.scope(), key.redactedKey(), e);
    } catch (ExecutionException e) {
      throw failure(e.getCause(), key, what);
    }
  }

  /**
   * What a failure is thrown as: the store's own exceptions as they are; a backend failure as
   * {@link IdempotencyStoreException} naming the operation and the redacted key, whose message and
   * cause chain carry no subject (a subject holds the key).
   */
  private RuntimeException failure(Throwable e, RecordKey key, String what) {
    Throwable t = BucketAccess.unwrap(e);
    if (t instanceof IdempotencyOutcomeException
        || t instanceof OutcomeNotRecordedException
        || t instanceof IdempotencyStoreException
        || t instanceof IllegalArgumentException) {
      return (RuntimeException) t;
    }
    String described =
        t.getClass().getSimpleName()
            + (t.getMessage() == null
                ? ""
                : ": " + SUBJECT.matcher(t.getMessage()).replaceAll("\\$KV.<subject>"));
    if (BucketAccess.apiError(t) != 0) {
      described += " (JetStream error " + BucketAccess.apiError(t) + ")";
    }
    return new IdempotencyStoreException(
        "NATS " + what + " failed on bucket '" + names.bucket() + "': " + described,
        key.scope(),
        key.redactedKey(),
        null);
  }

  /**
   * Settings for a {@link NatsIdempotencyStore}. Immutable: each method returns a new builder and
   * checks its value at once.
   */
  public static final class Builder {
    private final Connection connection;
    private final String bucket;
    private final Duration timeout;
    private final Duration maxAge;
    private final Duration longestTtl;
    private final int replicas;
    private final boolean createBucket;
    private final int maxOutcomeBytes;
    private final int callbackThreads;
    private final boolean closeConnectionOnClose;

    private Builder(
        Connection connection,
        String bucket,
        Duration timeout,
        Duration maxAge,
        Duration longestTtl,
        int replicas,
        boolean createBucket,
        int maxOutcomeBytes,
        int callbackThreads,
        boolean closeConnectionOnClose) {
      this.connection = connection;
      this.bucket = bucket;
      this.timeout = timeout;
      this.maxAge = maxAge;
      this.longestTtl = longestTtl;
      this.replicas = replicas;
      this.createBucket = createBucket;
      this.maxOutcomeBytes = maxOutcomeBytes;
      this.callbackThreads = callbackThreads;
      this.closeConnectionOnClose = closeConnectionOnClose;
    }

    private Builder with(
        String bucket,
        Duration timeout,
        Duration maxAge,
        Duration longestTtl,
        int replicas,
        boolean createBucket,
        int maxOutcomeBytes,
        boolean close) {
      return new Builder(
          connection,
          bucket,
          timeout,
          maxAge,
          longestTtl,
          replicas,
          createBucket,
          maxOutcomeBytes,
          callbackThreads,
          close);
    }

    /**
     * The key-value bucket, default {@value NatsIdempotencyStore#DEFAULT_BUCKET}: 1 to 64
     * characters among {@code A-Z a-z 0-9 _ -}. Give each application its own.
     */
    public Builder bucket(String bucket) {
      KeyNames.checkBucket(bucket);
      return with(
          bucket,
          timeout,
          maxAge,
          longestTtl,
          replicas,
          createBucket,
          maxOutcomeBytes,
          closeConnectionOnClose);
    }

    /** How long each request to NATS may take before the operation fails; default 5 s. */
    public Builder timeout(Duration timeout) {
      requirePositive("timeout", timeout);
      return with(
          bucket,
          timeout,
          maxAge,
          longestTtl,
          replicas,
          createBucket,
          maxOutcomeBytes,
          closeConnectionOnClose);
    }

    /**
     * The max age of the bucket when the store creates it (default 48 h): JetStream removes every
     * entry that much after it was written. It must exceed {@link #longestTtl} by {@link
     * NatsIdempotencyStore#MAX_AGE_MARGIN}.
     */
    public Builder maxAge(Duration maxAge) {
      requirePositive("maxAge", maxAge);
      return with(
          bucket,
          timeout,
          maxAge,
          longestTtl,
          replicas,
          createBucket,
          maxOutcomeBytes,
          closeConnectionOnClose);
    }

    /**
     * The longest ttl (or lease) any call will ask for, default {@link
     * IdempotencyConfig#DEFAULT_TTL}: {@link #build()} refuses a bucket whose max age is shorter
     * than it plus {@link NatsIdempotencyStore#MAX_AGE_MARGIN}.
     */
    public Builder longestTtl(Duration longestTtl) {
      requirePositive("longestTtl", longestTtl);
      return with(
          bucket,
          timeout,
          maxAge,
          longestTtl,
          replicas,
          createBucket,
          maxOutcomeBytes,
          closeConnectionOnClose);
    }

    /** Replicas of a bucket the store creates: 1 (default) or, in a cluster, 3 or 5. */
    public Builder replicas(int replicas) {
      if (replicas < 1 || replicas > 5) {
        throw new IllegalArgumentException(
            "replicas must be between 1 and 5 (3 in a three-server cluster), was " + replicas);
      }
      return with(
          bucket,
          timeout,
          maxAge,
          longestTtl,
          replicas,
          createBucket,
          maxOutcomeBytes,
          closeConnectionOnClose);
    }

    /**
     * Whether {@link #build()} creates a missing bucket (default {@code true}); else a missing
     * bucket fails it with the command that creates one.
     */
    public Builder createBucket(boolean create) {
      return with(
          bucket,
          timeout,
          maxAge,
          longestTtl,
          replicas,
          create,
          maxOutcomeBytes,
          closeConnectionOnClose);
    }

    /**
     * The largest outcome recorded, default 16 MiB; a larger one is not recorded, the key is
     * released and an error logged ({@link OutcomeNotRecordedException#releasingTheKey}).
     */
    public Builder maxOutcomeBytes(int bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxOutcomeBytes must be positive, was " + bytes);
      }
      return with(
          bucket,
          timeout,
          maxAge,
          longestTtl,
          replicas,
          createBucket,
          bytes,
          closeConnectionOnClose);
    }

    /**
     * Whether {@link NatsIdempotencyStore#close()} closes the connection; default {@code false}.
     */
    public Builder closeConnectionOnClose(boolean close) {
      return with(
          bucket, timeout, maxAge, longestTtl, replicas, createBucket, maxOutcomeBytes, close);
    }

    /**
     * Finds the bucket (creating it when allowed), checks its max age against {@link #longestTtl}
     * and reads the server's clock once, so a server that cannot be reached, has no JetStream, or a
     * bucket that does not fit fails here.
     *
     * @throws IllegalStateException when the bucket is missing and may not be created, or does not
     *     fit (the message says what to change)
     */
    public NatsIdempotencyStore build() {
      if (maxAge.compareTo(longestTtl.plus(MAX_AGE_MARGIN)) < 0) {
        throw new IllegalArgumentException(
            "maxAge "
                + maxAge
                + " must exceed longestTtl "
                + longestTtl
                + " by at least "
                + MAX_AGE_MARGIN);
      }
      KeyNames names = new KeyNames(bucket);
      BucketSetup.Bucket info;
      BucketAccess access;
      try {
        info =
            BucketSetup.ensure(
                connection, names, createBucket, replicas, maxAge, longestTtl, MAX_AGE_MARGIN);
        access = new BucketAccess(connection, names, timeout);
      } catch (IOException | JetStreamApiException e) {
        throw new IllegalStateException(
            "cannot reach the NATS key-value bucket '" + bucket + "': " + e.getMessage(), e);
      }
      ServerClock clock = new ServerClock(access);
      try {
        clock.probe().get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while reading the NATS server's clock", e);
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException(
            "cannot read the NATS server's clock on bucket '"
                + bucket
                + "': "
                + BucketAccess.unwrap(e),
            e);
      }
      return new NatsIdempotencyStore(this, access, info, clock);
    }

    private static void requirePositive(String what, Duration d) {
      if (d == null || d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException(what + " must be a positive duration, was " + d);
      }
    }
  }
}
