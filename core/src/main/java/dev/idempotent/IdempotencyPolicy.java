package dev.idempotent;

import dev.idempotent.internal.OperationPlan;
import java.lang.reflect.Type;
import java.util.Objects;

/**
 * The per-operation settings of a programmatic call: what {@link Idempotent} says for a woven
 * method. Immutable and reusable; build it once per operation.
 *
 * <pre>{@code
 * static final IdempotencyPolicy SUBMIT = IdempotencyPolicy.builder("orders.submit")
 *     .ttl(Duration.ofHours(24)).onInProgress(OnInProgress.WAIT).build();
 * Receipt r = Idempotency.global().execute(SUBMIT, idempotencyKey, request, () -> orders.submit(request));
 * }</pre>
 *
 * Settings left unset take the configuration's defaults.
 */
public final class IdempotencyPolicy {
  private final String scope;
  private final IdempotencySettings settings;
  private final Type resultType;
  private final boolean replayHooked;
  private final String adapter;

  /**
   * The plan of this policy's last call, so that the next one does not resolve it again; see {@link
   * Idempotency}.
   */
  volatile CachedPlan cachedPlan;

  /**
   * A plan and what it was built for: an instance, async or not, and the context class loader of
   * the call.
   */
  record CachedPlan(Idempotency owner, boolean async, ClassLoader loader, OperationPlan plan) {}

  private IdempotencyPolicy(Builder b) {
    this.scope = b.scope;
    this.settings = b.buildSettings();
    this.resultType = b.resultType;
    this.replayHooked = b.replayHooked;
    this.adapter = b.adapter;
  }

  /**
   * @param scope the namespace of this operation's keys, for example {@code orders.submit}
   */
  public static Builder builder(String scope) {
    return new Builder(scope);
  }

  public String scope() {
    return scope;
  }

  /** Store, durations, duplicate and in-progress handling, recorded failures. */
  public IdempotencySettings settings() {
    return settings;
  }

  /** The declared type of the result (for the codec); {@code Object.class} when unknown. */
  public Type resultType() {
    return resultType;
  }

  /**
   * Whether the configuration's {@link ReplayHook} sees this operation's replayed values: {@code
   * true} unless the builder said {@link Builder#withoutReplayHook()}.
   */
  public boolean replayHooked() {
    return replayHooked;
  }

  /**
   * What makes this operation's calls, as observations name it ({@code adapter} key): {@value
   * #METHOD_ADAPTER} unless an adapter says otherwise ({@code http}, {@code webflux}, {@code
   * kafka}, {@code rabbit}, {@code camel}).
   */
  public String adapter() {
    return adapter;
  }

  /** The adapter of programmatic and annotated calls. */
  public static final String METHOD_ADAPTER = "method";

  @Override
  public String toString() {
    return "IdempotencyPolicy{scope=" + scope + ", " + settings + "}";
  }

  /** Validating builder: the {@link IdempotencySettings} setters, and the result type. */
  public static final class Builder extends IdempotencySettings.AbstractBuilder<Builder> {
    private final String scope;
    private Type resultType = Object.class;
    private boolean replayHooked = true;
    private String adapter = METHOD_ADAPTER;

    private Builder(String scope) {
      if (scope == null || scope.isBlank()) {
        throw new IllegalArgumentException(
            "scope must not be blank: name the operation, e.g. \"orders.submit\"");
      }
      this.scope = scope;
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** The declared type of the result, which the codec records and reads back. */
    public Builder resultType(Type type) {
      this.resultType = Objects.requireNonNull(type, "resultType");
      return this;
    }

    /**
     * The configuration's {@link ReplayHook} is not called for this operation's replays: for an
     * adapter whose recorded values are its own (a web filter's encoded response, a message
     * consumer's nothing), not the result of a method a hook was written for. The web, WebFlux and
     * message adapters set it.
     */
    public Builder withoutReplayHook() {
      this.replayHooked = false;
      return this;
    }

    /**
     * What makes this operation's calls ({@link IdempotencyPolicy#adapter()}): a short lower-case
     * name, {@code [a-z0-9-]}, at most 16 characters. Adapters set it.
     */
    public Builder adapter(String adapter) {
      if (adapter == null || !adapter.matches("[a-z0-9-]{1,16}")) {
        throw new IllegalArgumentException(
            "adapter must be a short lower-case name ([a-z0-9-], 1 to 16 characters), was '"
                + adapter
                + "'");
      }
      this.adapter = adapter;
      return this;
    }

    public IdempotencyPolicy build() {
      return new IdempotencyPolicy(this);
    }
  }
}
