package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.DeleteAnnouncingStore;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store that {@code idempotent.store} describes, created by its provider on first use. It
 * stands in the configuration when the backend could not be reached at start-up, so that the
 * application starts and each call meets the outage as a store failure under the store-failure
 * policy (fail-closed: 503; fail-open: the method runs), as it would if the backend went down
 * later.
 *
 * <p>Creation: one attempt in flight at a time, shared by every caller that needs the store
 * meanwhile. After a failed attempt the failure is remembered and re-thrown at once to every caller
 * for a backoff (1 s, doubling up to 30 s) before the next attempt, so an unreachable backend costs
 * one attempt per backoff, not one per call. A provider's {@link IdempotencyConfigurationException}
 * or {@link IllegalArgumentException} (a wrong setting), or a missing class, is a configuration
 * error; anything else it throws means the backend is unreachable and is re-thrown as an {@link
 * IllegalStateException}, which the executor reports as a store failure.
 *
 * <p>The real store's {@code maxKeyLength()} is not known before it exists, so this one accepts any
 * length and fits each key to the real store here: the record key is the one the executor would
 * have made.
 */
public final class LazilyCreatedStore
    implements IdempotencyStore, AsyncIdempotencyStore, DeleteAnnouncingStore {
  static final long FIRST_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
  static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(30);

  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");

  private final IdempotencyStoreProvider provider;
  private final StoreSettings settings;
  private volatile IdempotencyStore store;
  // guarded by this
  private CompletableFuture<IdempotencyStore> attempt;
  private RuntimeException failure;
  private long retryAtNanos;
  private long backoffNanos = FIRST_BACKOFF_NANOS;
  private int failures;
  private boolean closed;

  /** Subscriptions to deletes made before the real store existed; attached when it is created. */
  private final List<ForwardedSubscription> subscriptions = new ArrayList<>();

  LazilyCreatedStore(IdempotencyStoreProvider provider, StoreSettings settings) {
    this.provider = provider;
    this.settings = settings;
  }

  /** The real store when it has been created, else {@code null}; never creates it. */
  IdempotencyStore created() {
    return store;
  }

  /** The provider's name: the value of {@code idempotent.store}. */
  public String name() {
    return provider.name();
  }

  /**
   * The real store, created now (or by the attempt already in flight) unless the last attempt
   * failed less than its backoff ago.
   *
   * @throws IdempotencyConfigurationException when a setting is wrong
   * @throws IllegalStateException when the backend cannot be reached (or this store was closed)
   */
  public IdempotencyStore get() {
    IdempotencyStore s = store;
    if (s != null) {
      return s;
    }
    CompletableFuture<IdempotencyStore> f;
    boolean mine = false;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException(
            "the idempotency store '"
                + name()
                + "' was closed (Idempotency.shutdown(), "
                + "install or reset); use Idempotency.global() again to get a new one");
      }
      if (store != null) {
        return store;
      }
      if (attempt == null) {
        long wait = retryAtNanos - System.nanoTime();
        if (failure != null && wait > 0) {
          throw again(
              failure, "; the next attempt is in " + TimeUnit.NANOSECONDS.toMillis(wait) + " ms");
        }
        attempt = new CompletableFuture<>();
        mine = true;
      }
      f = attempt;
    }
    if (mine) {
      return create(f);
    }
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw again((RuntimeException) e.getCause(), "");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while waiting for the idempotency store '" + name() + "' to be created", e);
    }
  }

  private IdempotencyStore create(CompletableFuture<IdempotencyStore> f) {
    IdempotencyStore created;
    try {
      created = checked(provider.create(settings));
    } catch (Throwable t) {
      RuntimeException failed = classify(t);
      long backoff;
      synchronized (this) {
        attempt = null;
        failure = failed;
        failures++;
        backoff = backoffNanos;
        retryAtNanos = System.nanoTime() + backoff;
        backoffNanos = Math.min(backoffNanos * 2, MAX_BACKOFF_NANOS);
      }
      LOG.warn(
          "the idempotency store '{}' could not be created; calls meet this as a store failure (the"
              + " store-failure policy applies) until an attempt succeeds, the next in {} ms: {}",
          name(),
          TimeUnit.NANOSECONDS.toMillis(backoff),
          failed.getMessage());
      f.completeExceptionally(failed);
      throw failed;
    }
    boolean closedMeanwhile;
    int failedBefore;
    synchronized (this) {
      attempt = null;
      closedMeanwhile = closed;
      failedBefore = failures;
      if (!closed) {
        store = created;
        failure = null;
        failures = 0;
        backoffNanos = FIRST_BACKOFF_NANOS;
      }
    }
    if (closedMeanwhile) {
      closeQuietly(created);
      RuntimeException failed =
          new IllegalStateException(
              "the idempotency store '" + name() + "' was closed while it was being created");
      f.completeExceptionally(failed);
      throw failed;
    }
    if (failedBefore > 0) {
      LOG.info(
          "the idempotency store '{}' is available, after {} failed attempts",
          name(),
          failedBefore);
    }
    List<ForwardedSubscription> waiting;
    synchronized (this) {
      waiting = new ArrayList<>(subscriptions);
    }
    waiting.forEach(s -> s.attach(created));
    f.complete(created);
    return created;
  }

  private IdempotencyStore checked(IdempotencyStore created) {
    if (created == null) {
      throw new IdempotencyConfigurationException(
          "store provider " + provider.getClass().getName() + " returned no store");
    }
    if (created.maxKeyLength() < RecordKey.DIGEST_LENGTH) {
      closeQuietly(created);
      throw new IdempotencyConfigurationException(
          "store "
              + created.getClass().getName()
              + " indexes keys of at "
              + "most "
              + created.maxKeyLength()
              + " characters; a store must accept at least "
              + RecordKey.DIGEST_LENGTH);
    }
    return created;
  }

  private RuntimeException classify(Throwable t) {
    if (t instanceof IdempotencyConfigurationException e) {
      return e;
    }
    if (t instanceof IllegalArgumentException) {
      return new IdempotencyConfigurationException("store '" + name() + "': " + t.getMessage(), t);
    }
    if (t instanceof LinkageError) {
      return new IdempotencyConfigurationException(
          "store '" + name() + "' could not be loaded (is a dependency " + "missing?): " + t, t);
    }
    return new IllegalStateException(
        "the idempotency store '" + name() + "' could not be created: " + t.getMessage(), t);
  }

  /**
   * A fresh exception for another caller, saying the same as {@code failure}, with it as the cause.
   */
  private static RuntimeException again(RuntimeException failure, String detail) {
    if (failure instanceof IdempotencyConfigurationException) {
      return new IdempotencyConfigurationException(failure.getMessage(), failure);
    }
    return new IllegalStateException(failure.getMessage() + detail, failure);
  }

  /**
   * The real store for an operation on {@code key}; an unreachable backend is thrown as an {@link
   * IdempotencyStoreException} (its message is this class's own and names no key), so the executor
   * reports it in full and applies the store-failure policy.
   */
  private IdempotencyStore storeFor(RecordKey key) {
    try {
      return get();
    } catch (IllegalStateException e) {
      throw new IdempotencyStoreException(e.getMessage(), key.scope(), key.redactedKey(), e);
    }
  }

  /**
   * The real store for a non-blocking operation on {@code key}: at once when it exists, else
   * created on the library's offload threads (creating it connects to the backend).
   */
  private CompletionStage<IdempotencyStore> storeForAsync(RecordKey key) {
    IdempotencyStore s = store;
    if (s != null) {
      return CompletableFuture.completedFuture(s);
    }
    return AsyncStores.offload(key, "creation of the store", () -> storeFor(key));
  }

  @Override
  public CompletionStage<ClaimResult> claimAsync(
      RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    return storeForAsync(key)
        .thenCompose(
            s ->
                AsyncStores.of(s)
                    .claimAsync(key.fittedTo(s.maxKeyLength()), ownerToken, fingerprint, lease));
  }

  @Override
  public CompletionStage<Boolean> completeAsync(
      RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    return storeForAsync(key)
        .thenCompose(
            s ->
                AsyncStores.of(s)
                    .completeAsync(key.fittedTo(s.maxKeyLength()), ownerToken, outcome, ttl));
  }

  @Override
  public CompletionStage<Boolean> releaseAsync(RecordKey key, String ownerToken) {
    return storeForAsync(key)
        .thenCompose(
            s -> AsyncStores.of(s).releaseAsync(key.fittedTo(s.maxKeyLength()), ownerToken));
  }

  @Override
  public CompletionStage<Boolean> renewAsync(RecordKey key, String ownerToken, Duration lease) {
    return storeForAsync(key)
        .thenCompose(
            s -> AsyncStores.of(s).renewAsync(key.fittedTo(s.maxKeyLength()), ownerToken, lease));
  }

  @Override
  public CompletionStage<Optional<IdempotencyRecord>> readAsync(RecordKey key) {
    return storeForAsync(key)
        .thenCompose(s -> AsyncStores.of(s).readAsync(key.fittedTo(s.maxKeyLength())));
  }

  @Override
  public CompletionStage<Void> awaitChangeAsync(RecordKey key, Duration maxWait) {
    return storeForAsync(key)
        .thenCompose(
            s -> AsyncStores.of(s).awaitChangeAsync(key.fittedTo(s.maxKeyLength()), maxWait));
  }

  @Override
  public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    IdempotencyStore s = storeFor(key);
    return s.claim(key.fittedTo(s.maxKeyLength()), ownerToken, fingerprint, lease);
  }

  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    IdempotencyStore s = storeFor(key);
    return s.complete(key.fittedTo(s.maxKeyLength()), ownerToken, outcome, ttl);
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    IdempotencyStore s = storeFor(key);
    return s.release(key.fittedTo(s.maxKeyLength()), ownerToken);
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    IdempotencyStore s = storeFor(key);
    return s.renew(key.fittedTo(s.maxKeyLength()), ownerToken, lease);
  }

  @Override
  public boolean[] renewAll(List<HeldClaim> claims, Duration lease) {
    IdempotencyStore s = storeFor(claims.get(0).key());
    return s.renewAll(fitted(claims, s), lease);
  }

  @Override
  public CompletionStage<boolean[]> renewAllAsync(List<HeldClaim> claims, Duration lease) {
    return storeForAsync(claims.get(0).key())
        .thenCompose(s -> AsyncStores.of(s).renewAllAsync(fitted(claims, s), lease));
  }

  private static List<HeldClaim> fitted(List<HeldClaim> claims, IdempotencyStore s) {
    int max = s.maxKeyLength();
    List<HeldClaim> fitted = new ArrayList<>(claims.size());
    for (HeldClaim c : claims) {
      fitted.add(new HeldClaim(c.key().fittedTo(max), c.ownerToken()));
    }
    return fitted;
  }

  @Override
  public boolean delete(RecordKey key) {
    IdempotencyStore s = storeFor(key);
    return s.delete(key.fittedTo(s.maxKeyLength()));
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    IdempotencyStore s = storeFor(key);
    return s.read(key.fittedTo(s.maxKeyLength()));
  }

  @Override
  public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
    IdempotencyStore s = storeFor(key);
    s.awaitChange(key.fittedTo(s.maxKeyLength()), maxWait);
  }

  /**
   * Subscribes to the real store's announcements of deletes, now if it exists, else as soon as it
   * is created; a real store that announces none leaves the subscription silent.
   */
  @Override
  public Subscription subscribeToDeletes(DeleteListener listener) {
    ForwardedSubscription s = new ForwardedSubscription(listener);
    IdempotencyStore real;
    synchronized (this) {
      subscriptions.add(s);
      real = store;
    }
    if (real != null) {
      s.attach(real);
    }
    return s;
  }

  /** A subscription to deletes, forwarded to the real store once it exists. */
  private final class ForwardedSubscription implements Subscription {
    private final DeleteListener listener;
    private Subscription attached; // guarded by this
    private boolean ended; // guarded by this

    ForwardedSubscription(DeleteListener listener) {
      this.listener = listener;
    }

    void attach(IdempotencyStore real) {
      if (!(real instanceof DeleteAnnouncingStore announcing)) {
        return;
      }
      synchronized (this) {
        if (ended || attached != null) {
          return;
        }
        try {
          attached = announcing.subscribeToDeletes(listener);
        } catch (RuntimeException e) {
          LOG.warn(
              "subscribing to deletes in the idempotency store '{}' failed; a near cache then keeps"
                  + " deleted records for at most its expire-after: {}",
              name(),
              Protocol.describe(e));
        }
      }
    }

    @Override
    public void close() {
      Subscription s;
      synchronized (this) {
        ended = true;
        s = attached;
        attached = null;
      }
      synchronized (LazilyCreatedStore.this) {
        subscriptions.remove(this);
      }
      if (s != null) {
        s.close();
      }
    }
  }

  /** The real store's key length, or -1 while it is not created. */
  int createdMaxKeyLength() {
    IdempotencyStore s = store;
    return s == null ? -1 : s.maxKeyLength();
  }

  /** Any length: keys are fitted to the real store's limit when they reach it. */
  @Override
  public int maxKeyLength() {
    return Integer.MAX_VALUE;
  }

  /** Closes the real store if it was created; later operations fail. Idempotent. */
  @Override
  public void close() {
    IdempotencyStore s;
    synchronized (this) {
      closed = true;
      s = store;
      store = null;
    }
    if (s != null) {
      s.close();
    }
  }

  private static void closeQuietly(IdempotencyStore s) {
    try {
      s.close();
    } catch (RuntimeException e) {
      LOG.debug("closing a store that is not used failed", e);
    }
  }

  @Override
  public String toString() {
    IdempotencyStore s = store;
    return "LazilyCreatedStore[" + name() + ": " + (s != null ? s : "not created yet") + "]";
  }
}
