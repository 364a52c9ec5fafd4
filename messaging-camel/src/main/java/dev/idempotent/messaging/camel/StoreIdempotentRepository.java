package dev.idempotent.messaging.camel;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageInProgressException;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.service.ServiceSupport;

/**
 * A Camel {@link IdempotentRepository} over any {@link IdempotencyStore} (memory, Redis, JDBC), for
 * the {@code idempotentConsumer} EIP in its default eager mode:
 *
 * <pre>{@code
 * IdempotentRepository orders = StoreIdempotentRepository.builder(store, "orders.route").build();
 * from("jms:orders").idempotentConsumer(header("orderId"), orders).to("bean:booking");
 * }</pre>
 *
 * <ul>
 *   <li>{@link #add} claims the key with a lease: {@code true} for the first exchange of a key,
 *       which then runs the route; {@code false} only when the key is completed (the exchange is a
 *       duplicate and is skipped). A key held by an exchange still running is waited for up to the
 *       wait bound (replayed as a duplicate if it completes, claimed if it is released); then
 *       {@code add} throws {@link MessageInProgressException}, so the exchange fails and the
 *       consumer's broker delivers it again later. Answering {@code false} there would make Camel
 *       acknowledge and drop a message whose first attempt may still fail: a lost message.
 *   <li>{@link #confirm} records the key as completed (kept for the ttl); {@link #remove}, called
 *       when the exchange failed ({@code removeOnFailure}, the default), releases the claim so that
 *       a redelivery runs the route again.
 *   <li>Only the exchange that claimed a key completes or releases it (its owner token is kept on
 *       the exchange, or, for the calls without an exchange, in the repository while the exchange
 *       is in flight, never longer); a claim whose lease ran out and was taken over by another
 *       consumer is neither completed nor released by the first (fencing).
 * </ul>
 *
 * The lease is not renewed: choose one longer than the longest run of the route. The records are
 * filed under the scope the application names, with the key the route's expression gives. Non-eager
 * mode ({@code eager(false)}) checks with {@link #contains} and adds after the route: it does not
 * protect against concurrent deliveries and is not recommended.
 */
public final class StoreIdempotentRepository extends ServiceSupport
    implements IdempotentRepository {
  /**
   * The outcome a completed key records: a {@code null} value, as a method returning {@code null}
   * records it, so tools reading the store see an ordinary completed record.
   */
  private static final byte[] NULL_OUTCOME = {'N'};

  /** The longest wait between two looks at a key in progress. */
  private static final Duration MAX_POLL = Duration.ofMillis(200);

  private final IdempotencyStore store;
  private final String scope;
  private final Duration lease;
  private final Duration ttl;
  private final Duration inProgressWait;
  private final int maxInFlight;
  private final Map<String, String> ownerTokens = new ConcurrentHashMap<>();

  private StoreIdempotentRepository(Builder b) {
    this.store = b.store;
    this.scope = b.scope;
    this.lease = b.lease;
    this.ttl = b.ttl;
    this.inProgressWait = b.inProgressWait;
    this.maxInFlight = b.maxInFlight;
  }

  /**
   * @param store where the keys are claimed and recorded
   * @param scope what the records are filed under: name the route or its consumer
   */
  public static Builder builder(IdempotencyStore store, String scope) {
    return new Builder(store, scope);
  }

  /**
   * Claims {@code key}; see the class description.
   *
   * @throws MessageInProgressException when another exchange still holds the key after the wait
   * @throws IllegalStateException when {@link Builder#maxInFlight} exchanges hold claims already
   */
  @Override
  public boolean add(String key) {
    if (ownerTokens.size() >= maxInFlight) {
      throw new IllegalStateException(
          "the idempotent repository of scope "
              + scope
              + " holds "
              + maxInFlight
              + " claims of exchanges in flight: confirm or remove them (the idempotentConsumer"
              + " does when the exchange ends), or raise maxInFlight");
    }
    String ownerToken = claim(key);
    if (ownerToken == null) {
      return false;
    }
    ownerTokens.put(key, ownerToken);
    return true;
  }

  /**
   * {@link #add(String)} for the exchange that brings {@code key}: the owner token of the claim is
   * kept on the exchange (so two exchanges of one key never share one), not in the repository.
   */
  @Override
  public boolean add(Exchange exchange, String key) {
    String ownerToken = claim(key);
    if (ownerToken == null) {
      return false;
    }
    exchange.setProperty(ownerTokenProperty(), ownerToken);
    return true;
  }

  /** {@link #confirm(String)} for the exchange whose {@link #add(Exchange, String)} claimed it. */
  @Override
  public boolean confirm(Exchange exchange, String key) {
    String ownerToken = takeOwnerToken(exchange);
    return ownerToken == null
        ? confirm(key)
        : store.complete(recordKey(key), ownerToken, NULL_OUTCOME, ttl);
  }

  /** {@link #remove(String)} for the exchange whose {@link #add(Exchange, String)} claimed it. */
  @Override
  public boolean remove(Exchange exchange, String key) {
    String ownerToken = takeOwnerToken(exchange);
    return ownerToken == null ? remove(key) : store.release(recordKey(key), ownerToken);
  }

  private String ownerTokenProperty() {
    return "dev.idempotent.ownerToken:" + scope;
  }

  private String takeOwnerToken(Exchange exchange) {
    Object token = exchange.removeProperty(ownerTokenProperty());
    return token instanceof String s ? s : null;
  }

  /** The owner token of a new claim of {@code key}, or {@code null} when the key is completed. */
  private String claim(String key) {
    RecordKey recordKey = recordKey(key);
    long deadline = System.nanoTime() + inProgressWait.toNanos();
    while (true) {
      String ownerToken = UUID.randomUUID().toString();
      ClaimResult result = store.claim(recordKey, ownerToken, null, lease);
      if (result.isAcquired()) {
        return ownerToken;
      }
      if (result.existing().isCompleted()) {
        return null;
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new MessageInProgressException(scope, recordKey.redactedKey(), inProgressWait);
      }
      try {
        store.awaitChange(recordKey, Duration.ofNanos(Math.min(remaining, MAX_POLL.toNanos())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new MessageInProgressException(scope, recordKey.redactedKey(), inProgressWait);
      }
    }
  }

  /** Whether {@code key} has a record: completed, or claimed by an exchange still running. */
  @Override
  public boolean contains(String key) {
    return store.read(recordKey(key)).isPresent();
  }

  /**
   * Releases this repository's claim of {@code key}, so that the next delivery runs the route.
   *
   * @return whether this repository held the claim and released it
   */
  @Override
  public boolean remove(String key) {
    String ownerToken = ownerTokens.remove(key);
    return ownerToken != null && store.release(recordKey(key), ownerToken);
  }

  /**
   * Records {@code key} as completed, kept for the ttl.
   *
   * @return whether this repository held the claim and completed it (false when the claim was taken
   *     over after its lease ran out)
   */
  @Override
  public boolean confirm(String key) {
    String ownerToken = ownerTokens.remove(key);
    return ownerToken != null && store.complete(recordKey(key), ownerToken, NULL_OUTCOME, ttl);
  }

  /**
   * Not supported: the store's records are shared with other consumers and kept for the ttl; an
   * operator deletes one key with {@code Idempotency.delete(store, scope, key)}.
   */
  @Override
  public void clear() {
    throw new UnsupportedOperationException(
        "a StoreIdempotentRepository does not clear its scope ("
            + scope
            + "): records expire after their ttl; delete one key with Idempotency.delete(store,"
            + " scope, key)");
  }

  /** The scope the records are filed under. */
  public String scope() {
    return scope;
  }

  /** How many claims this repository holds for calls made without an exchange. */
  public int inFlight() {
    return ownerTokens.size();
  }

  @Override
  protected void doStop() {
    ownerTokens.clear();
  }

  private RecordKey recordKey(String key) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException(
          "the idempotentConsumer's key expression gave "
              + (key == null ? "null" : "a blank key")
              + " (scope "
              + scope
              + "): use an expression that names the message, such as a header with its id");
    }
    return RecordKey.of(scope, key).fittedTo(store.maxKeyLength());
  }

  /** Validating builder. */
  public static final class Builder {
    private final IdempotencyStore store;
    private final String scope;
    private Duration lease = IdempotencyConfig.DEFAULT_LEASE;
    private Duration ttl = IdempotencyConfig.DEFAULT_TTL;
    private Duration inProgressWait = MessageIdempotency.DEFAULT_IN_PROGRESS_WAIT;
    private int maxInFlight = 10_000;

    private Builder(IdempotencyStore store, String scope) {
      this.store = Objects.requireNonNull(store, "store");
      if (scope == null || scope.isBlank()) {
        throw new IllegalArgumentException(
            "scope must not be blank: name the route, e.g. \"orders.route\"");
      }
      this.scope = scope;
    }

    /**
     * How long a claim holds (default {@link IdempotencyConfig#DEFAULT_LEASE}); it is not renewed,
     * so make it longer than the longest run of the route.
     */
    public Builder lease(Duration lease) {
      this.lease = positive(lease, "lease");
      return this;
    }

    /** How long a completed key is kept (default {@link IdempotencyConfig#DEFAULT_TTL}). */
    public Builder ttl(Duration ttl) {
      this.ttl = positive(ttl, "ttl");
      return this;
    }

    /**
     * How long {@link #add} waits for a key held by another exchange before it throws (default
     * {@link MessageIdempotency#DEFAULT_IN_PROGRESS_WAIT}).
     */
    public Builder inProgressWait(Duration wait) {
      this.inProgressWait = positive(wait, "inProgressWait");
      return this;
    }

    /**
     * The most claims held at once for exchanges in flight (default 10,000); an {@link #add} beyond
     * it fails the exchange.
     */
    public Builder maxInFlight(int maxInFlight) {
      if (maxInFlight < 1) {
        throw new IllegalArgumentException("maxInFlight must be at least 1, was " + maxInFlight);
      }
      this.maxInFlight = maxInFlight;
      return this;
    }

    public StoreIdempotentRepository build() {
      return new StoreIdempotentRepository(this);
    }

    private static Duration positive(Duration d, String what) {
      Objects.requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, was " + d);
      }
      return d;
    }
  }
}
