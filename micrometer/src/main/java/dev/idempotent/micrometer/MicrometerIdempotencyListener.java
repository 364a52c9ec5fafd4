package dev.idempotent.micrometer;

import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyListener;
import dev.idempotent.LeaseRenewals;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.lang.ref.WeakReference;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records idempotent calls to a Micrometer {@link MeterRegistry}; usable with or without Spring:
 *
 * <pre>{@code
 * IdempotencyConfig.builder().listener(MicrometerIdempotencyListener.of(registry))...
 * }</pre>
 *
 * <ul>
 *   <li>{@value #CALLS} (counter), tags {@code scope} and {@code outcome}: one count per event, the
 *       outcome being the event type in lower case ({@code executed}, {@code recorded_failure},
 *       {@code replayed}, {@code rejected_duplicate}, {@code in_progress}, {@code blocked}, {@code
 *       mismatch}, {@code taken_over}, {@code fenced}, {@code store_error}, {@code fail_open},
 *       {@code payload_check_skipped} (a repeat of a record whose fingerprint another version of
 *       the format made), the renewal events, and any type added later). It is the library's meter
 *       path: {@link ObservationIdempotencyObserver} makes spans, not these counts. All outcomes of
 *       a scope are registered together when the scope is first seen, so an outcome that never
 *       happened reads 0 rather than missing.
 *   <li>{@value #EXECUTIONS} (timer), tag {@code scope}: the time from the start of each call that
 *       ran the method to its recorded outcome ({@code EXECUTED} and {@code RECORDED_FAILURE}
 *       events).
 *   <li>{@value #RENEWAL_LAG} (time gauge), tag {@code store}: how late the most overdue lease
 *       renewal of the store is ({@link LeaseRenewals#lag}); zero while the renewals keep up. A
 *       claim's lease ends under its running call when its lag reaches two thirds of the lease (20
 *       s at the default lease of 30 s): alert well before, for example above a sixth of the lease
 *       (5 s), where the library also logs a WARN.
 *   <li>{@value #HELD_CLAIMS} (gauge), tag {@code store}: the claims of running calls this JVM
 *       holds, and renews, in the store ({@link LeaseRenewals#heldClaims}).
 * </ul>
 *
 * The {@code store} tag is the store's name in the configuration ({@code default} for the default
 * store). Both gauges are registered for every store as soon as it holds its first claim.
 *
 * <p>Tags never carry a key. Scopes are normally one per annotated method, but a scope can be made
 * per request (a web path, a caller identity); to keep cardinality bounded, only the first {@link
 * Builder#maxScopes} distinct scopes get meters of their own and every later scope is counted under
 * {@code scope="}{@value #OTHER_SCOPE}{@code "} (logged once at WARN).
 */
public final class MicrometerIdempotencyListener implements IdempotencyListener {
  /** Name of the counter of events. */
  public static final String CALLS = "idempotent.calls";

  /** Name of the timer of executions. */
  public static final String EXECUTIONS = "idempotent.executions";

  /** Name of the gauge of each store's lease renewal lag. */
  public static final String RENEWAL_LAG = "idempotent.lease.renewal.lag";

  /** Name of the gauge of each store's held claims. */
  public static final String HELD_CLAIMS = "idempotent.lease.held";

  /** The {@code scope} tag of scopes beyond {@link Builder#maxScopes}. */
  public static final String OTHER_SCOPE = "_other";

  /** Default bound on distinct scopes with meters of their own. */
  public static final int DEFAULT_MAX_SCOPES = 500;

  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.micrometer");
  private static final IdempotencyEvent.Type[] TYPES = IdempotencyEvent.Type.values();

  private final MeterRegistry registry;
  private final Tags commonTags;
  private final int maxScopes;
  private final Map<String, ScopeMeters> byScope = new ConcurrentHashMap<>();
  private final AtomicInteger distinctScopes = new AtomicInteger();
  private volatile ScopeMeters other;

  private MicrometerIdempotencyListener(Builder b) {
    this.registry = b.registry;
    this.commonTags = b.tags;
    this.maxScopes = b.maxScopes;
    bindRenewalGauges(new WeakReference<>(b.registry), b.tags);
  }

  /**
   * Registers the renewal gauges of every store, now and as stores appear. The registry is held
   * weakly: a registry nobody uses any more is not kept alive by the library's renewer.
   */
  private static void bindRenewalGauges(WeakReference<MeterRegistry> registry, Tags tags) {
    AtomicReference<AutoCloseable> subscription = new AtomicReference<>();
    subscription.set(
        LeaseRenewals.onStore(
            store -> {
              MeterRegistry r = registry.get();
              if (r == null) {
                AutoCloseable s = subscription.get();
                if (s != null) {
                  try {
                    s.close();
                  } catch (Exception ignored) {
                    // removing an observer from a list does not fail
                  }
                }
                return;
              }
              Tags storeTags = tags.and("store", store);
              TimeGauge.builder(
                      RENEWAL_LAG, () -> LeaseRenewals.lag(store).toNanos(), TimeUnit.NANOSECONDS)
                  .description(
                      "How late the store's most overdue lease renewal is; a lease ends at two"
                          + " thirds of the lease")
                  .tags(storeTags)
                  .register(r);
              Gauge.builder(HELD_CLAIMS, () -> LeaseRenewals.heldClaims(store))
                  .description("Claims of running calls held, and renewed, in the store")
                  .tags(storeTags)
                  .register(r);
            }));
  }

  /** A listener with the default settings. */
  public static MicrometerIdempotencyListener of(MeterRegistry registry) {
    return builder(registry).build();
  }

  /** A builder of a listener recording to {@code registry}. */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  @Override
  public void onEvent(IdempotencyEvent event) {
    ScopeMeters meters = meters(event.scope());
    meters.counters[event.type().ordinal()].increment();
    if (event.type() == IdempotencyEvent.Type.EXECUTED
        || event.type() == IdempotencyEvent.Type.RECORDED_FAILURE) {
      meters.executions.record(event.duration());
    }
  }

  private ScopeMeters meters(String scope) {
    ScopeMeters m = byScope.get(scope);
    if (m != null) {
      return m;
    }
    if (distinctScopes.get() >= maxScopes) {
      return other();
    }
    ScopeMeters created =
        byScope.computeIfAbsent(
            scope,
            s -> {
              if (distinctScopes.incrementAndGet() > maxScopes) {
                distinctScopes.decrementAndGet();
                return null;
              }
              return new ScopeMeters(s);
            });
    return created != null ? created : other();
  }

  private ScopeMeters other() {
    ScopeMeters o = other;
    if (o == null) {
      synchronized (this) {
        o = other;
        if (o == null) {
          LOG.warn(
              "more than {} idempotency scopes were seen; further scopes are counted under"
                  + " scope=\"{}\" to keep metric cardinality bounded (raise"
                  + " MicrometerIdempotencyListener.builder(...).maxScopes(...) if the scopes are"
                  + " really that many methods)",
              maxScopes,
              OTHER_SCOPE);
          o = new ScopeMeters(OTHER_SCOPE);
          other = o;
        }
      }
    }
    return o;
  }

  /** The meters of one scope, registered together. */
  private final class ScopeMeters {
    final Counter[] counters = new Counter[TYPES.length];
    final Timer executions;

    ScopeMeters(String scope) {
      Tags tags = commonTags.and(Tag.of("scope", scope));
      for (IdempotencyEvent.Type type : TYPES) {
        counters[type.ordinal()] =
            Counter.builder(CALLS)
                .description("Idempotent calls by outcome")
                .tags(tags.and("outcome", type.name().toLowerCase(Locale.ROOT)))
                .register(registry);
      }
      executions =
          Timer.builder(EXECUTIONS)
              .description("Calls that ran the method, from their start to the recorded outcome")
              .tags(tags)
              .register(registry);
    }
  }

  /** Settings of a listener; validated as they are set. */
  public static final class Builder {
    private final MeterRegistry registry;
    private Tags tags = Tags.empty();
    private int maxScopes = DEFAULT_MAX_SCOPES;

    private Builder(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** Tags added to every meter (for example the application's name). */
    public Builder tags(Iterable<Tag> tags) {
      Objects.requireNonNull(tags, "tags");
      for (Tag t : tags) {
        if (t.getKey().equals("scope")
            || t.getKey().equals("outcome")
            || t.getKey().equals("store")) {
          throw new IllegalArgumentException(
              "tag '" + t.getKey() + "' is set by the listener itself; use another name");
        }
      }
      this.tags = this.tags.and(tags);
      return this;
    }

    /**
     * How many distinct scopes get meters of their own (default {@value
     * MicrometerIdempotencyListener#DEFAULT_MAX_SCOPES}); at least 1.
     */
    public Builder maxScopes(int maxScopes) {
      if (maxScopes < 1) {
        throw new IllegalArgumentException("maxScopes must be at least 1, was " + maxScopes);
      }
      this.maxScopes = maxScopes;
      return this;
    }

    public MicrometerIdempotencyListener build() {
      return new MicrometerIdempotencyListener(this);
    }
  }
}
