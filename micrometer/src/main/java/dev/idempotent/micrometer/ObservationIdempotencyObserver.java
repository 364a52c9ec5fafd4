package dev.idempotent.micrometer;

import dev.idempotent.CallOutcome;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link IdempotencyObserver} that makes a Micrometer {@link Observation} of each call, so that
 * with a tracer on the registry each call is a span in its caller's trace; usable with or without
 * Spring:
 *
 * <pre>{@code
 * IdempotencyConfig.builder().observer(ObservationIdempotencyObserver.of(observationRegistry))...
 * }</pre>
 *
 * <ul>
 *   <li>one {@value DefaultIdempotentCallObservationConvention#NAME} observation per call, started
 *       where the call starts (its parent is the observation current there: the caller's span) and
 *       stopped when the call ended, with the keys of {@link
 *       DefaultIdempotentCallObservationConvention}; an error when the caller got one thrown;
 *   <li>while the method runs, the call's observation is the current one, so what the method
 *       observes (its own spans, its log lines' trace ids) is nested in the call;
 *   <li>events {@code idempotent.taken_over}, {@code idempotent.fenced}, {@code
 *       idempotent.renewal_late}, {@code idempotent.renewal_failed}, {@code
 *       idempotent.max_hold_reached}, {@code idempotent.payload_check_skipped}, {@code
 *       idempotent.store_error} (after the method ran) on the call's observation;
 *   <li>a child {@value DefaultIdempotentStoreObservationConvention#NAME} observation per store
 *       round trip ({@code claim}, {@code complete}, {@code release}), unless {@link
 *       Builder#roundTrips} is off;
 *   <li>a child {@value #WAIT} observation (key {@code store}) around each wait for a key that
 *       another call holds ({@code onInProgress = WAIT}): a trace shows how long the call waited.
 * </ul>
 *
 * Meters stay with {@link MicrometerIdempotencyListener} (counter {@value
 * MicrometerIdempotencyListener#CALLS}); a registry with a meter handler (Spring Boot's) also times
 * the observation as {@value DefaultIdempotentCallObservationConvention#NAME}.
 *
 * <p>With a no-op registry (no handler) a call costs one check: nothing is created.
 */
public final class ObservationIdempotencyObserver implements IdempotencyObserver {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.micrometer");
  private static final DefaultIdempotentCallObservationConvention DEFAULT_CALL =
      new DefaultIdempotentCallObservationConvention();
  private static final DefaultIdempotentStoreObservationConvention DEFAULT_STORE =
      new DefaultIdempotentStoreObservationConvention();

  /** The name of the child observation around each wait for a key in progress. */
  public static final String WAIT = "idempotent.wait";

  private static final Map<IdempotencyEvent.Type, Observation.Event> EVENTS =
      new EnumMap<>(IdempotencyEvent.Type.class);

  static {
    for (IdempotencyEvent.Type type : IdempotencyEvent.Type.values()) {
      String name = type.name().toLowerCase(Locale.ROOT);
      EVENTS.put(type, Observation.Event.of("idempotent." + name, name.replace('_', ' ')));
    }
  }

  private final ObservationRegistry registry;
  private final IdempotentCallObservationConvention convention;
  private final IdempotentStoreObservationConvention storeConvention;
  private final boolean roundTrips;
  private final boolean keyDigest;
  private final int maxScopes;
  private final Set<String> scopes = ConcurrentHashMap.newKeySet();
  private volatile boolean warnedScopes;

  private ObservationIdempotencyObserver(Builder b) {
    this.registry = b.registry;
    this.convention = b.convention;
    this.storeConvention = b.storeConvention;
    this.roundTrips = b.roundTrips;
    this.keyDigest = b.keyDigest;
    this.maxScopes = b.maxScopes;
  }

  /** An observer with the default settings. */
  public static ObservationIdempotencyObserver of(ObservationRegistry registry) {
    return builder(registry).build();
  }

  /** A builder of an observer on {@code registry}. */
  public static Builder builder(ObservationRegistry registry) {
    return new Builder(registry);
  }

  @Override
  public Call start(String scope, String store, String adapter, String digest) {
    if (registry.isNoop()) {
      return Call.NONE;
    }
    IdempotentCallContext context =
        new IdempotentCallContext(bounded(scope), store, adapter, digest, keyDigest);
    Observation observation =
        Observation.createNotStarted(convention, DEFAULT_CALL, () -> context, registry);
    if (observation.isNoop()) {
      return Call.NONE;
    }
    return new ObservedCall(observation.start(), context, store);
  }

  /** The scope, or {@code _other} beyond {@link Builder#maxScopes} distinct scopes. */
  private String bounded(String scope) {
    if (scopes.contains(scope)) {
      return scope;
    }
    if (scopes.size() < maxScopes && scopes.add(scope)) {
      return scope;
    }
    if (scopes.contains(scope)) {
      return scope;
    }
    if (!warnedScopes) {
      warnedScopes = true;
      LOG.warn(
          "more than {} idempotency scopes were seen; further scopes are observed under"
              + " scope=\"{}\" to keep cardinality bounded",
          maxScopes,
          MicrometerIdempotencyListener.OTHER_SCOPE);
    }
    return MicrometerIdempotencyListener.OTHER_SCOPE;
  }

  private final class ObservedCall implements Call {
    private final Observation observation;
    private final IdempotentCallContext context;
    private final String store;

    ObservedCall(Observation observation, IdempotentCallContext context, String store) {
      this.observation = observation;
      this.context = context;
      this.store = store;
    }

    @Override
    public void event(IdempotencyEvent.Type type) {
      observation.event(EVENTS.get(type));
    }

    @Override
    public RoundTrip roundTrip(String operation) {
      if (!roundTrips) {
        return RoundTrip.NONE;
      }
      IdempotentStoreContext storeContext = new IdempotentStoreContext(operation, store);
      Observation trip;
      // a tracer takes the current span as the parent: the call's, while the child starts
      try (Observation.Scope scope = observation.openScope()) {
        trip =
            Observation.createNotStarted(
                    storeConvention, DEFAULT_STORE, () -> storeContext, registry)
                .parentObservation(observation)
                .start();
      }
      return error -> {
        if (error != null) {
          trip.error(error);
        }
        trip.stop();
      };
    }

    @Override
    public RoundTrip waitForKey() {
      Observation wait;
      try (Observation.Scope scope = observation.openScope()) {
        wait =
            Observation.createNotStarted(WAIT, registry)
                .contextualName("idempotent wait")
                .lowCardinalityKeyValue("store", store)
                .parentObservation(observation)
                .start();
      }
      return error -> {
        if (error != null) {
          wait.error(error);
        }
        wait.stop();
      };
    }

    @Override
    public Scope openScope() {
      Observation.Scope scope = observation.openScope();
      return scope::close;
    }

    @Override
    public void end(CallOutcome outcome, Throwable error) {
      context.outcome(outcome);
      if (error != null) {
        observation.error(error);
      }
      observation.stop();
    }
  }

  /** Settings of an observer; validated as they are set. */
  public static final class Builder {
    private final ObservationRegistry registry;
    private IdempotentCallObservationConvention convention;
    private IdempotentStoreObservationConvention storeConvention;
    private boolean roundTrips = true;
    private boolean keyDigest;
    private int maxScopes = MicrometerIdempotencyListener.DEFAULT_MAX_SCOPES;

    private Builder(ObservationRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** The application's names and key values of the call's observation (default: none). */
    public Builder convention(IdempotentCallObservationConvention convention) {
      this.convention = Objects.requireNonNull(convention, "convention");
      return this;
    }

    /** The application's names and key values of a store round trip's observation. */
    public Builder storeConvention(IdempotentStoreObservationConvention convention) {
      this.storeConvention = Objects.requireNonNull(convention, "storeConvention");
      return this;
    }

    /** Whether each store round trip is a child observation (default {@code true}). */
    public Builder roundTrips(boolean roundTrips) {
      this.roundTrips = roundTrips;
      return this;
    }

    /**
     * Whether the key's short digest is a high-cardinality value of the call's observation (a span
     * tag), to find the calls of one key in traces (default {@code false}). Never the key.
     */
    public Builder keyDigest(boolean keyDigest) {
      this.keyDigest = keyDigest;
      return this;
    }

    /**
     * How many distinct scopes are named in the {@code scope} key (default {@value
     * MicrometerIdempotencyListener#DEFAULT_MAX_SCOPES}); later ones are {@code _other}. At least
     * 1.
     */
    public Builder maxScopes(int maxScopes) {
      if (maxScopes < 1) {
        throw new IllegalArgumentException("maxScopes must be at least 1, was " + maxScopes);
      }
      this.maxScopes = maxScopes;
      return this;
    }

    public ObservationIdempotencyObserver build() {
      return new ObservationIdempotencyObserver(this);
    }
  }
}
