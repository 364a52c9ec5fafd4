package dev.idempotent;

import dev.idempotent.internal.OperationPlan;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Arrays;
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
  private final String store;
  private final Duration ttl;
  private final Duration lease;
  private final Duration waitTimeout;
  private final OnDuplicate onDuplicate;
  private final OnInProgress onInProgress;
  private final Class<? extends Throwable>[] recordFailures;
  private final Type resultType;

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
    this.store = b.store;
    this.ttl = b.ttl;
    this.lease = b.lease;
    this.waitTimeout = b.waitTimeout;
    this.onDuplicate = b.onDuplicate;
    this.onInProgress = b.onInProgress;
    this.recordFailures = b.recordFailures.clone();
    this.resultType = b.resultType;
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

  /** The named store, or {@code ""} for the default store. */
  public String store() {
    return store;
  }

  /** The ttl, or {@code null} for the configured default. */
  public Duration ttl() {
    return ttl;
  }

  /** The lease, or {@code null} for the configured default. */
  public Duration lease() {
    return lease;
  }

  /** The wait timeout, or {@code null} for the configured default. */
  public Duration waitTimeout() {
    return waitTimeout;
  }

  public OnDuplicate onDuplicate() {
    return onDuplicate;
  }

  public OnInProgress onInProgress() {
    return onInProgress;
  }

  public Class<? extends Throwable>[] recordFailures() {
    return recordFailures.clone();
  }

  /** The declared type of the result (for the codec); {@code Object.class} when unknown. */
  public Type resultType() {
    return resultType;
  }

  @Override
  public String toString() {
    return "IdempotencyPolicy{scope="
        + scope
        + ", store="
        + store
        + ", ttl="
        + ttl
        + ", lease="
        + lease
        + ", waitTimeout="
        + waitTimeout
        + ", "
        + onDuplicate
        + ", "
        + onInProgress
        + ", recordFailures="
        + Arrays.toString(recordFailures)
        + "}";
  }

  /** Validating builder. */
  public static final class Builder {
    private final String scope;
    private String store = "";
    private Duration ttl;
    private Duration lease;
    private Duration waitTimeout;
    private OnDuplicate onDuplicate = OnDuplicate.REPLAY;
    private OnInProgress onInProgress = OnInProgress.REJECT;

    @SuppressWarnings("unchecked")
    private Class<? extends Throwable>[] recordFailures = new Class[0];

    private Type resultType = Object.class;

    private Builder(String scope) {
      if (scope == null || scope.isBlank()) {
        throw new IllegalArgumentException(
            "scope must not be blank: name the operation, e.g. \"orders.submit\"");
      }
      this.scope = scope;
    }

    public Builder store(String name) {
      this.store =
          Objects.requireNonNull(name, "store name must not be null (\"\" = default store)");
      return this;
    }

    public Builder ttl(Duration ttl) {
      this.ttl = positive(ttl, "ttl");
      return this;
    }

    public Builder lease(Duration lease) {
      this.lease = positive(lease, "lease");
      return this;
    }

    public Builder waitTimeout(Duration waitTimeout) {
      this.waitTimeout = positive(waitTimeout, "waitTimeout");
      return this;
    }

    public Builder onDuplicate(OnDuplicate onDuplicate) {
      this.onDuplicate = Objects.requireNonNull(onDuplicate, "onDuplicate");
      return this;
    }

    public Builder onInProgress(OnInProgress onInProgress) {
      this.onInProgress = Objects.requireNonNull(onInProgress, "onInProgress");
      return this;
    }

    @SafeVarargs
    public final Builder recordFailures(Class<? extends Throwable>... types) {
      for (Class<? extends Throwable> t : types) {
        Objects.requireNonNull(t, "recordFailures must not contain null");
      }
      this.recordFailures = types.clone();
      return this;
    }

    public Builder resultType(Type type) {
      this.resultType = Objects.requireNonNull(type, "resultType");
      return this;
    }

    public IdempotencyPolicy build() {
      return new IdempotencyPolicy(this);
    }

    private static Duration positive(Duration d, String what) {
      if (d == null) {
        throw new NullPointerException(what + " must not be null");
      }
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException(what + " must be positive, was " + d);
      }
      return d;
    }
  }
}
