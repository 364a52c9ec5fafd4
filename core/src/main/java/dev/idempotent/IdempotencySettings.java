package dev.idempotent;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * What a protected operation needs to know, whatever protects it: a woven method ({@link
 * Idempotent}), a programmatic {@link IdempotencyPolicy}, {@link SubmitTokens}, a web rule or a
 * message listener. Immutable and validated: each setter of a builder checks its value at once and
 * names it when it is wrong.
 *
 * <pre>{@code
 * IdempotencySettings settings = IdempotencySettings.builder()
 *     .ttl(Duration.ofHours(48))
 *     .onInProgress(OnInProgress.WAIT)
 *     .build();
 * }</pre>
 *
 * A duration left unset ({@code null}) is the installed {@link IdempotencyConfig}'s default, looked
 * up when the operation is planned, so one set of settings serves several configurations.
 *
 * <p>The builders of {@link IdempotencyPolicy}, {@link SubmitTokens} and the web rules extend
 * {@link AbstractBuilder}: the same setters with the same checks everywhere.
 */
public final class IdempotencySettings {
  /**
   * Every setting at its default: the default store, the configuration's durations, REPLAY, REJECT.
   */
  public static final IdempotencySettings DEFAULTS = builder().build();

  private final String store;
  private final Duration ttl;
  private final Duration lease;
  private final Duration waitTimeout;
  private final OnDuplicate onDuplicate;
  private final OnInProgress onInProgress;
  private final OnCancel onCancel;
  private final OnAmbiguousFailure onAmbiguousFailure;
  private final Class<? extends Throwable>[] recordFailures;

  private IdempotencySettings(AbstractBuilder<?> b) {
    this.store = b.store;
    this.ttl = b.ttl;
    this.lease = b.lease;
    this.waitTimeout = b.waitTimeout;
    this.onDuplicate = b.onDuplicate;
    this.onInProgress = b.onInProgress;
    this.onCancel = b.onCancel;
    this.onAmbiguousFailure = b.onAmbiguousFailure;
    this.recordFailures = b.recordFailures.clone();
  }

  /** A builder with every setting at its default. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every setting of {@code base}, to change a few. */
  public static Builder from(IdempotencySettings base) {
    return new Builder().settings(base);
  }

  /** The named store, or {@code ""} for the default store. */
  public String store() {
    return store;
  }

  /**
   * How long a completed outcome is kept and replayed, or {@code null} for the configured default.
   */
  public Duration ttl() {
    return ttl;
  }

  /** How long a claim holds without renewal, or {@code null} for the configured default. */
  public Duration lease() {
    return lease;
  }

  /** How long {@link OnInProgress#WAIT} waits, or {@code null} for the configured default. */
  public Duration waitTimeout() {
    return waitTimeout;
  }

  /** What a repeat of a completed key gets. */
  public OnDuplicate onDuplicate() {
    return onDuplicate;
  }

  /** What a repeat of a key that is still running gets. */
  public OnInProgress onInProgress() {
    return onInProgress;
  }

  /** What happens to the claim when the work it protects is cancelled before it ends. */
  public OnCancel onCancel() {
    return onCancel;
  }

  /**
   * What a failure that is not one of {@link #recordFailures()} leaves behind: released (the
   * default), recorded as an ambiguous outcome, or blocking the key.
   */
  public OnAmbiguousFailure onAmbiguousFailure() {
    return onAmbiguousFailure;
  }

  /** The failures kept as the outcome and rethrown on repeats; any other frees the key. */
  public Class<? extends Throwable>[] recordFailures() {
    return recordFailures.clone();
  }

  /** Whether {@code failure} is one of {@link #recordFailures()}. */
  public boolean records(Throwable failure) {
    for (Class<? extends Throwable> c : recordFailures) {
      if (c.isInstance(failure)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdempotencySettings s
        && store.equals(s.store)
        && Objects.equals(ttl, s.ttl)
        && Objects.equals(lease, s.lease)
        && Objects.equals(waitTimeout, s.waitTimeout)
        && onDuplicate == s.onDuplicate
        && onInProgress == s.onInProgress
        && onCancel == s.onCancel
        && onAmbiguousFailure == s.onAmbiguousFailure
        && Arrays.equals(recordFailures, s.recordFailures);
  }

  @Override
  public int hashCode() {
    return Objects.hash(store, ttl, lease, waitTimeout, onDuplicate, onInProgress, onCancel);
  }

  @Override
  public String toString() {
    return "store="
        + (store.isEmpty() ? "(default)" : store)
        + ", ttl="
        + orDefault(ttl)
        + ", lease="
        + orDefault(lease)
        + ", waitTimeout="
        + orDefault(waitTimeout)
        + ", "
        + onDuplicate
        + ", "
        + onInProgress
        + ", onCancel="
        + onCancel
        + ", onAmbiguousFailure="
        + onAmbiguousFailure
        + ", recordFailures="
        + Arrays.toString(recordFailures);
  }

  private static String orDefault(Duration d) {
    return d == null ? "(default)" : d.toString();
  }

  /** The builder of plain settings. */
  public static final class Builder extends AbstractBuilder<Builder> {
    private Builder() {}

    @Override
    protected Builder self() {
      return this;
    }

    public IdempotencySettings build() {
      return buildSettings();
    }
  }

  /**
   * The setters every builder of a protected operation shares, each checking its value at once.
   *
   * @param <B> the concrete builder, returned by every setter
   */
  public abstract static class AbstractBuilder<B extends AbstractBuilder<B>> {
    private String store = "";
    private Duration ttl;
    private Duration lease;
    private Duration waitTimeout;
    private OnDuplicate onDuplicate = OnDuplicate.REPLAY;
    private OnInProgress onInProgress = OnInProgress.REJECT;
    private OnCancel onCancel = OnCancel.KEEP;
    private OnAmbiguousFailure onAmbiguousFailure = OnAmbiguousFailure.RELEASE;

    @SuppressWarnings("unchecked")
    private Class<? extends Throwable>[] recordFailures = new Class[0];

    protected AbstractBuilder() {}

    /** This builder, typed as the concrete builder. */
    protected abstract B self();

    /** Takes every setting of {@code settings}. */
    public B settings(IdempotencySettings settings) {
      Objects.requireNonNull(settings, "settings must not be null");
      this.store = settings.store;
      this.ttl = settings.ttl;
      this.lease = settings.lease;
      this.waitTimeout = settings.waitTimeout;
      this.onDuplicate = settings.onDuplicate;
      this.onInProgress = settings.onInProgress;
      this.onCancel = settings.onCancel;
      this.onAmbiguousFailure = settings.onAmbiguousFailure;
      this.recordFailures = settings.recordFailures.clone();
      return self();
    }

    /** The named store ({@code ""}, the default: the configuration's default store). */
    public B store(String name) {
      this.store =
          Objects.requireNonNull(name, "store name must not be null (\"\" = the default store)")
              .strip();
      return self();
    }

    /** How long a completed outcome is kept and replayed (default: the configuration's, 24h). */
    public B ttl(Duration ttl) {
      this.ttl = positive(ttl, "ttl");
      return self();
    }

    /**
     * How long a claim holds if its holder stops renewing it (default: the configuration's, 30s).
     */
    public B lease(Duration lease) {
      this.lease = positive(lease, "lease");
      return self();
    }

    /** How long {@link OnInProgress#WAIT} waits (default: the configuration's, 10s). */
    public B waitTimeout(Duration waitTimeout) {
      this.waitTimeout = positive(waitTimeout, "waitTimeout");
      return self();
    }

    /** What a repeat of a completed key gets (default {@link OnDuplicate#REPLAY}). */
    public B onDuplicate(OnDuplicate onDuplicate) {
      this.onDuplicate = Objects.requireNonNull(onDuplicate, "onDuplicate must not be null");
      return self();
    }

    /** What a repeat of a running key gets (default {@link OnInProgress#REJECT}). */
    public B onInProgress(OnInProgress onInProgress) {
      this.onInProgress = Objects.requireNonNull(onInProgress, "onInProgress must not be null");
      return self();
    }

    /**
     * What happens to the claim when the work it protects (a {@code Mono}, a {@code Flux}, a
     * coroutine) is cancelled before it ends (default {@link OnCancel#KEEP}).
     */
    public B onCancel(OnCancel onCancel) {
      this.onCancel = Objects.requireNonNull(onCancel, "onCancel must not be null");
      return self();
    }

    /**
     * What a failure that is not listed in {@link #recordFailures} (or cannot be recorded) leaves
     * behind (default {@link OnAmbiguousFailure#RELEASE}: the key is freed and a retry runs).
     */
    public B onAmbiguousFailure(OnAmbiguousFailure onAmbiguousFailure) {
      this.onAmbiguousFailure =
          Objects.requireNonNull(onAmbiguousFailure, "onAmbiguousFailure must not be null");
      return self();
    }

    /**
     * The failures kept as the outcome and rethrown (same type and message) on repeats (default
     * none); any other failure is settled as {@link #onAmbiguousFailure} says.
     */
    @SafeVarargs
    public final B recordFailures(Class<? extends Throwable>... types) {
      Objects.requireNonNull(types, "recordFailures must not be null");
      for (Class<? extends Throwable> t : types) {
        Objects.requireNonNull(t, "recordFailures must not contain null");
      }
      this.recordFailures = types.clone();
      return self();
    }

    /** The settings as set so far. */
    public final IdempotencySettings buildSettings() {
      return new IdempotencySettings(this);
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
