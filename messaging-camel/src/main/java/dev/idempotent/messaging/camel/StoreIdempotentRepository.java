package dev.idempotent.messaging.camel;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyClaim;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageInProgressException;
import dev.idempotent.spi.RecordKey;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Navigate;
import org.apache.camel.Ordered;
import org.apache.camel.Route;
import org.apache.camel.RuntimeCamelException;
import org.apache.camel.processor.idempotent.IdempotentConsumer;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.LifecycleStrategySupport;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Camel {@link IdempotentRepository} on the library's claims ({@link Idempotency#claim}), for the
 * {@code idempotentConsumer} EIP: the same protocol as every other adapter (lease renewed while the
 * exchange runs, the same wait for a key in progress, events and metrics, the configured
 * store-failure and ambiguous-failure policies, owner tokens from core), configured by a {@link
 * MessageIdempotency}:
 *
 * <pre>{@code
 * MessageIdempotency orders = MessageIdempotency.builder("orders.route").build();
 * IdempotentRepository repository = StoreIdempotentRepository.builder(orders).build();
 * from("jms:orders").idempotentConsumer(header("orderId"), repository).to("bean:booking");
 * }</pre>
 *
 * How Camel's calls map onto a claim:
 *
 * <ul>
 *   <li>{@code add(exchange, key)}, before the route: claims the key. {@code true} when the
 *       exchange holds the claim (or the store is down and fail-open): it runs the route, and the
 *       claim's lease is renewed until the exchange settles it. {@code false} when the key is
 *       completed: a duplicate. A key held by an exchange still running is waited for up to the
 *       {@link MessageIdempotency#inProgressWait()} (a duplicate if it completes, claimed if it is
 *       released); then it throws {@link MessageInProgressException}, so the exchange fails and its
 *       broker delivers it again later (answering {@code false} would acknowledge and drop a
 *       message whose first attempt may still fail). A key whose recorded outcome is a failure (the
 *       settings' {@code recordFailures}, or {@code onAmbiguousFailure} {@code RECORD} or {@code
 *       BLOCK}) throws that failure ({@code IdempotencyAmbiguousOutcomeException}, {@code
 *       IdempotencyBlockedException}) at once, without a wait: the exchange fails with it and the
 *       route's error handler (a dead letter channel) takes it as a final failure. A store outage
 *       under fail-closed throws {@code IdempotencyStoreException}.
 *   <li>{@code confirm(exchange, key)}, the exchange completed: records the key as completed, kept
 *       for the ttl.
 *   <li>{@code remove(exchange, key)}, the exchange failed ({@code removeOnFailure}): settles the
 *       claim with the exchange's exception as the settings say: recorded when listed in {@code
 *       recordFailures}, else as {@code onAmbiguousFailure} says (released by default, so the
 *       redelivery runs the route again).
 *   <li>{@code contains(key)}: whether the key has a record (completed or claimed); reads only.
 *   <li>{@code clear()}: refused; an operator deletes one key with {@link Idempotency#delete}.
 * </ul>
 *
 * The claim travels on the exchange, so only the exchange that claimed a key settles it, and a
 * claim taken over (or deleted by an operator) is neither completed nor released by its first
 * holder (fencing). A claim the consumer never settles is settled when the exchange ends (released,
 * or settled with its exception), never left renewed.
 *
 * <p>The {@code idempotentConsumer}'s options are checked when a route that uses this repository
 * starts: the default eager mode, {@code completionEager} true or false and {@code skipDuplicate}
 * true or false are safe; {@code eager(false)} (the key would be claimed only after the route ran,
 * so two deliveries could both run it) and {@code removeOnFailure(false)} (a failed exchange's
 * claim would be left neither completed nor released) are refused with an {@link
 * IdempotencyConfigurationException} that says what to do.
 */
public final class StoreIdempotentRepository extends ServiceSupport
    implements IdempotentRepository, CamelContextAware {
  private static final Logger LOG = LoggerFactory.getLogger(StoreIdempotentRepository.class);

  /** How deep an exchange's exception is searched for one the settings record. */
  private static final int MAX_CAUSE_DEPTH = 16;

  private final MessageIdempotency messages;
  private final IdempotencyPolicy policy;
  private final int maxInFlight;
  private final String claimProperty;

  /** The claims of calls made without an exchange, by key, while their exchanges are in flight. */
  private final Map<String, IdempotencyClaim> claims = new ConcurrentHashMap<>();

  /** The contexts whose routes are checked as they start. */
  private final Set<CamelContext> checkedContexts =
      java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());

  private volatile CamelContext camelContext;

  private StoreIdempotentRepository(Builder b) {
    this.messages = b.messages.withAdapter("camel"); // observations name these calls "camel"
    this.maxInFlight = b.maxInFlight;
    this.policy = messages.policy();
    this.claimProperty = "dev.idempotent.claim:" + messages.scope();
  }

  /**
   * @param messages the scope (name the route), the instance, the settings (store, lease, ttl,
   *     recorded failures, {@code onAmbiguousFailure}) and the wait for a key in progress
   */
  public static Builder builder(MessageIdempotency messages) {
    return new Builder(messages);
  }

  /**
   * Claims {@code key} for {@code exchange}; see the class description.
   *
   * @throws MessageInProgressException when another exchange still holds the key after the wait
   * @throws dev.idempotent.IdempotencyBlockedException when the key is blocked
   */
  @Override
  public boolean add(Exchange exchange, String key) {
    ExchangeClaim held = exchange.getProperty(claimProperty, ExchangeClaim.class);
    if (held != null && held.key.equals(key) && !held.settled.get()) {
      return true; // this exchange passes the consumer again: its own claim
    }
    IdempotencyClaim claim = claim(key);
    if (claim == null) {
      return false;
    }
    ExchangeClaim claimed = new ExchangeClaim(key, claim);
    exchange.setProperty(claimProperty, claimed);
    // settles a claim the consumer leaves unsettled when the exchange ends (runs after the
    // consumer's own completion: Ordered.LOWEST)
    exchange.getExchangeExtension().addOnCompletion(claimed);
    return true;
  }

  /** {@link #confirm(String)} for the exchange whose {@link #add(Exchange, String)} claimed it. */
  @Override
  public boolean confirm(Exchange exchange, String key) {
    ExchangeClaim held = take(exchange, key);
    return held == null ? confirm(key) : held.complete();
  }

  /**
   * {@link #remove(String)} for the exchange whose {@link #add(Exchange, String)} claimed it: the
   * claim is settled with the exchange's exception (also when a dead letter channel handled it) as
   * the settings say, or released when the exchange carries none.
   */
  @Override
  public boolean remove(Exchange exchange, String key) {
    ExchangeClaim held = take(exchange, key);
    return held == null ? remove(key) : held.fail(failureOf(exchange));
  }

  /** {@link #contains(String)}: reads only, also for the exchange. */
  @Override
  public boolean contains(Exchange exchange, String key) {
    return contains(key);
  }

  /**
   * Claims {@code key} for a caller without an exchange; the claim is kept in the repository until
   * {@link #confirm(String)} or {@link #remove(String)}.
   *
   * @throws IllegalStateException when {@link Builder#maxInFlight} claims are held already
   */
  @Override
  public boolean add(String key) {
    if (claims.size() >= maxInFlight) {
      throw new IllegalStateException(
          "the idempotent repository of scope "
              + scope()
              + " holds "
              + maxInFlight
              + " claims of exchanges in flight: confirm or remove them (the idempotentConsumer"
              + " does when the exchange ends), or raise maxInFlight");
    }
    IdempotencyClaim claim = claim(key);
    if (claim == null) {
      return false;
    }
    IdempotencyClaim previous = claims.put(key, claim);
    if (previous != null) {
      await(previous.release());
    }
    return true;
  }

  /** Whether {@code key} has a record: completed, or claimed by an exchange still running. */
  @Override
  public boolean contains(String key) {
    requireKey(key);
    return messages.idempotency().inspect(messages.settings().store(), scope(), key).isPresent();
  }

  /**
   * Releases the claim {@link #add(String)} took, so that the next delivery runs the route.
   *
   * @return whether this repository held a claim of {@code key}
   */
  @Override
  public boolean remove(String key) {
    IdempotencyClaim claim = claims.remove(key);
    if (claim == null) {
      return false;
    }
    await(claim.release());
    return true;
  }

  /**
   * Records {@code key}, claimed by {@link #add(String)}, as completed, kept for the ttl. A claim
   * taken over after it was lost is not completed (fencing; a {@code FENCED} event says so).
   *
   * @return whether this repository held a claim of {@code key}
   */
  @Override
  public boolean confirm(String key) {
    IdempotencyClaim claim = claims.remove(key);
    if (claim == null) {
      return false;
    }
    await(claim.complete(null));
    return true;
  }

  /**
   * Not supported: the store's records are shared with other consumers and kept for the ttl; an
   * operator deletes one key with {@code Idempotency.delete(store, scope, key)}.
   */
  @Override
  public void clear() {
    throw new UnsupportedOperationException(
        "a StoreIdempotentRepository does not clear its scope ("
            + scope()
            + "): records expire after their ttl; delete one key with Idempotency.delete(store,"
            + " scope, key)");
  }

  /** The scope the records are filed under. */
  public String scope() {
    return messages.scope();
  }

  /** How many claims this repository holds for calls made without an exchange. */
  public int inFlight() {
    return claims.size();
  }

  @Override
  public CamelContext getCamelContext() {
    return camelContext;
  }

  /**
   * Called by Camel before the {@code idempotentConsumer} starts this repository: from then on,
   * every route of {@code context} is checked as it starts (see the class description).
   */
  @Override
  public void setCamelContext(CamelContext context) {
    this.camelContext = context;
    if (context == null) {
      return;
    }
    synchronized (checkedContexts) {
      if (!checkedContexts.add(context)) {
        return;
      }
    }
    if (IDEMPOTENT_CONSUMER_PRESENT) {
      context.addLifecycleStrategy(new RouteCheck());
    }
  }

  /**
   * Whether Camel's {@code idempotentConsumer} processor (camel-core-processor) is on the class
   * path: without it no route can use this repository through the EIP, and nothing is checked.
   */
  private static final boolean IDEMPOTENT_CONSUMER_PRESENT =
      present("org.apache.camel.processor.idempotent.IdempotentConsumer");

  private static boolean present(String className) {
    try {
      Class.forName(className, false, StoreIdempotentRepository.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Releases the claims held for calls made without an exchange. */
  @Override
  protected void doStop() {
    for (String key : claims.keySet()) {
      IdempotencyClaim claim = claims.remove(key);
      if (claim != null) {
        claim.release();
      }
    }
  }

  /** A new claim of {@code key}, or {@code null} when the key is completed. */
  private IdempotencyClaim claim(String key) {
    requireKey(key);
    CompletableFuture<IdempotencyClaim> pending =
        messages.idempotency().claim(policy, key).toCompletableFuture();
    IdempotencyClaim claim;
    try {
      claim = pending.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pending.thenAccept(IdempotencyClaim::release); // a claim that arrives later is given back
      throw new RuntimeCamelException(
          "interrupted while claiming a message key in scope " + scope(), e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof IdempotencyInProgressException) {
        throw new MessageInProgressException(
            scope(), RecordKey.redact(key), messages.inProgressWait());
      }
      throw unchecked(cause);
    }
    if (claim.runs()) {
      return claim;
    }
    if (claim.replaysFailure()) {
      throw unchecked(claim.replayedFailure());
    }
    return null;
  }

  private ExchangeClaim take(Exchange exchange, String key) {
    ExchangeClaim held = exchange.getProperty(claimProperty, ExchangeClaim.class);
    if (held == null || !held.key.equals(key)) {
      return null;
    }
    exchange.removeProperty(claimProperty);
    return held;
  }

  /**
   * The exception the exchange failed with (also when a dead letter channel handled it), as the
   * settings see it: the first of it and its causes that they record, else itself; {@code null}
   * when the exchange carries none.
   */
  private Throwable failureOf(Exchange exchange) {
    Throwable failure = exchange.getException();
    if (failure == null) {
      failure = exchange.getProperty(ExchangePropertyKey.EXCEPTION_CAUGHT, Throwable.class);
    }
    Throwable t = failure;
    for (int depth = 0; t != null && depth < MAX_CAUSE_DEPTH; depth++) {
      if (messages.settings().records(t)) {
        return t;
      }
      t = t.getCause() == t ? null : t.getCause();
    }
    return failure;
  }

  private void requireKey(String key) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException(
          "the idempotentConsumer's key expression gave "
              + (key == null ? "null" : "a blank key")
              + " (scope "
              + scope()
              + "): use an expression that names the message, such as a header with its id");
    }
  }

  private static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      throw unchecked(e.getCause() != null ? e.getCause() : e);
    }
  }

  private static RuntimeException unchecked(Throwable t) {
    if (t instanceof RuntimeException e) {
      return e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new RuntimeCamelException(t);
  }

  /**
   * One exchange's claim. As a {@link Synchronization} of the exchange it settles the claim when
   * the exchange ends and the consumer has not: released after a success (nothing confirmed it),
   * settled with the exchange's exception after a failure.
   */
  private final class ExchangeClaim implements Synchronization, Ordered {
    final String key;
    final IdempotencyClaim claim;
    final AtomicBoolean settled = new AtomicBoolean();

    ExchangeClaim(String key, IdempotencyClaim claim) {
      this.key = key;
      this.claim = claim;
    }

    boolean complete() {
      if (settled.compareAndSet(false, true)) {
        await(claim.complete(null));
      }
      return true;
    }

    boolean fail(Throwable failure) {
      if (settled.compareAndSet(false, true)) {
        if (failure == null) {
          await(claim.release());
        } else {
          await(claim.fail(failure));
        }
      }
      return true;
    }

    @Override
    public void onComplete(Exchange exchange) {
      if (settled.compareAndSet(false, true)) {
        LOG.warn(
            "the exchange of {} in scope {} ended without confirming its claim: it is released",
            RecordKey.redact(key),
            scope());
        await(claim.release());
      }
    }

    @Override
    public void onFailure(Exchange exchange) {
      if (!settled.get()) {
        fail(failureOf(exchange));
      }
    }

    @Override
    public int getOrder() {
      return Ordered.LOWEST;
    }
  }

  /**
   * Checks the options of every {@code idempotentConsumer} on this repository as its route starts.
   * The only class that names camel-core-processor's types, loaded only when they are present.
   */
  private final class RouteCheck extends LifecycleStrategySupport {
    @Override
    public void onRoutesAdd(Collection<Route> routes) {
      for (Route route : routes) {
        check(
            route, route.navigate(), java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
      }
    }

    private void check(Route route, Object node, Set<Object> seen) {
      if (node == null || !seen.add(node)) {
        return;
      }
      if (node instanceof IdempotentConsumer consumer
          && consumer.getIdempotentRepository() == StoreIdempotentRepository.this) {
        refuseUnsafe(route, consumer);
      }
      if (node instanceof Navigate<?> navigate && navigate.hasNext()) {
        for (Object child : navigate.next()) {
          check(route, child, seen);
        }
      }
    }

    private void refuseUnsafe(Route route, IdempotentConsumer consumer) {
      String where =
          "the idempotentConsumer of route " + route.getId() + " (scope " + scope() + ")";
      if (!consumer.isEager()) {
        throw new IdempotencyConfigurationException(
            where
                + " is not eager: eager(false) checks with contains before the route and claims the"
                + " key only after it ran, so two deliveries of one message can both run the route."
                + " Remove eager(false): the default eager mode claims the key before the route"
                + " runs");
      }
      if (!consumer.isRemoveOnFailure()) {
        throw new IdempotencyConfigurationException(
            where
                + " has removeOnFailure(false): a failed exchange's claim would be neither"
                + " completed nor released. Remove removeOnFailure(false); to keep a failed message"
                + " from running again, list its exception in the settings' recordFailures or set"
                + " onAmbiguousFailure to RECORD or BLOCK on the MessageIdempotency");
      }
    }
  }

  /** Validating builder. */
  public static final class Builder {
    private final MessageIdempotency messages;
    private int maxInFlight = 10_000;

    private Builder(MessageIdempotency messages) {
      this.messages = Objects.requireNonNull(messages, "messages");
    }

    /**
     * The most claims held at once for calls without an exchange ({@link #add(String)}; default
     * 10,000); an {@code add} beyond it fails.
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
  }
}
