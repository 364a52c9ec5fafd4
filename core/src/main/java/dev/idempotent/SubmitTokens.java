package dev.idempotent;

import dev.idempotent.internal.AsyncStores;
import dev.idempotent.internal.IdempotencyExecutor;
import dev.idempotent.internal.OperationPlan;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.lang.reflect.Type;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * One-time submit tokens, the classic guard against a form submitted twice: the server {@link
 * #issue issues} a token when it renders the form, and the submit runs only with a token issued for
 * that form (the <b>scene</b>) and that user (the <b>subject</b>), at most once.
 *
 * <pre>{@code
 * SubmitTokens tokens = SubmitTokens.create(Idempotency.global());
 * String token = tokens.issue("orders.new", userId);                 // render it in a hidden field
 * Receipt r = tokens.execute("orders.new", userId, tokenFromForm, () -> orders.submit(form));
 * }</pre>
 *
 * <h2>How it is built</h2>
 *
 * On the store's ordinary claim/complete/release, with no operation of its own:
 *
 * <ol>
 *   <li>{@link #issue} draws 192 random bits from {@link SecureRandom} (32 URL-safe base64
 *       characters) and records an "issued" outcome under the scope {@code submit-token:<scene>},
 *       keyed by the token and a digest of the subject, kept for the ttl (default {@link
 *       #DEFAULT_TTL}, so a long form does not expire under its user).
 *   <li>{@link #execute} first reads that record. A forged token, another subject's token and an
 *       expired one are all "not found" and get the same {@link SubmitTokenException} (HTTP 400),
 *       so tokens cannot be probed.
 *   <li>Then the submit runs through the executor under the scope {@code submit:<scene>} and the
 *       same key: N concurrent submits with one token run once ({@link OnInProgress#WAIT} by
 *       default: the others wait and get its outcome). A submit that throws releases the claim, so
 *       <b>a failed submit does not burn the token</b>; the token is consumed only when the outcome
 *       is recorded (with the JDBC store's caller-transaction mode, when the business transaction
 *       commits). A repeat after success gets the first outcome, or with {@link OnDuplicate#REJECT}
 *       a {@link DuplicateRequestException} ("already submitted").
 * </ol>
 *
 * A woven {@code @Idempotent} method can require a valid token too: call {@link #require} first in
 * it, with the token as its key (a refused token throws before anything ran, so nothing is
 * recorded).
 *
 * <p>Store failures follow the configuration's {@link StoreFailurePolicy}. Immutable and
 * thread-safe.
 */
public final class SubmitTokens {
  /** How long an issued token stays valid: 15 minutes. */
  public static final Duration DEFAULT_TTL = Duration.ofMinutes(15);

  private static final int TOKEN_BYTES = 24;
  private static final int TOKEN_LENGTH = 32;
  private static final String ISSUED_SCOPE = "submit-token:";
  private static final String SUBMIT_SCOPE = "submit:";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Idempotency idempotency;
  private final IdempotencyExecutor executor;
  private final IdempotencySettings settings;
  private final boolean replayHooked;

  /** The settings of issuing: the tokens' store and ttl, never waiting, never rejecting. */
  private final IdempotencySettings issuing;

  private SubmitTokens(Builder b) {
    this.idempotency = b.idempotency;
    this.executor = b.idempotency.executor();
    this.settings = b.buildSettings();
    this.replayHooked = b.replayHooked;
    this.issuing =
        IdempotencySettings.from(settings)
            .onInProgress(OnInProgress.REJECT)
            .onDuplicate(OnDuplicate.REPLAY)
            .recordFailures()
            .build();
    idempotency.config().store(settings.store());
  }

  /** Tokens over {@code idempotency} with the defaults. */
  public static SubmitTokens create(Idempotency idempotency) {
    return builder(idempotency).build();
  }

  /**
   * A validating builder over {@code idempotency} (its store, clock, listener and store-failure
   * policy).
   */
  public static Builder builder(Idempotency idempotency) {
    return new Builder(idempotency);
  }

  /**
   * A new token for the form {@code scene} and the user {@code subject}, valid for the ttl.
   *
   * @param scene names the form, for example {@code orders.new} or the path it posts to
   * @param subject the user or session the token is bound to ({@code ""} for none, which binds it
   *     to the scene only)
   * @throws IdempotencyStoreException when the store fails and the policy is fail-closed
   */
  public String issue(String scene, String subject) {
    checkScene(scene);
    Objects.requireNonNull(
        subject, "subject must not be null (use \"\" for a token bound to the scene only)");
    byte[] bits = new byte[TOKEN_BYTES];
    RANDOM.nextBytes(bits);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
    try {
      executor.execute(
          plan(ISSUED_SCOPE + scene, issuing, Object.class),
          recordKey(token, subject),
          null,
          () -> Boolean.TRUE);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
    return token;
  }

  /**
   * Whether {@code token} was issued for {@code scene} and {@code subject} and has not expired
   * (used or not). Reads only.
   *
   * @throws IdempotencyStoreException when the store fails (whatever the policy: a check cannot
   *     fail open)
   */
  public boolean isIssued(String scene, String subject, String token) {
    checkScene(scene);
    if (!wellFormed(token) || subject == null) {
      return false;
    }
    IdempotencyStore s = idempotency.config().store(settings.store());
    RecordKey key =
        RecordKey.of(ISSUED_SCOPE + scene, recordKey(token, subject)).fittedTo(s.maxKeyLength());
    Optional<IdempotencyRecord> rec;
    try {
      rec = s.read(key);
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IdempotencyStoreException(
          "the idempotency store failed while checking a submit token: " + e, key.scope(), null, e);
    }
    return rec.isPresent() && rec.get().isCompleted();
  }

  /**
   * Throws {@link SubmitTokenException} unless {@code token} was issued for {@code scene} and
   * {@code subject} and has not expired. With a fail-open configuration a store failure lets the
   * call through.
   */
  public void require(String scene, String subject, String token) {
    boolean issued;
    try {
      issued = isIssued(scene, subject, token);
    } catch (IdempotencyStoreException e) {
      if (idempotency.config().storeFailurePolicy() == StoreFailurePolicy.FAIL_OPEN) {
        return;
      }
      throw e;
    }
    if (!issued) {
      throw new SubmitTokenException(SUBMIT_SCOPE + scene);
    }
  }

  /**
   * Runs {@code body} once for {@code token}, if it was issued for {@code scene} and {@code
   * subject}; see the class description.
   *
   * @throws SubmitTokenException when the token was not issued for this scene and subject, or has
   *     expired
   * @throws Exception what {@code body} threw (unchanged; the token stays usable), or an {@link
   *     IdempotencyException} (in progress, already submitted, store failure)
   */
  public <T> T execute(String scene, String subject, String token, Callable<T> body)
      throws Exception {
    return execute(scene, subject, token, Object.class, body);
  }

  /**
   * {@link #execute(String, String, String, Callable)} with the declared result type, for the
   * codec.
   */
  @SuppressWarnings("unchecked")
  public <T> T execute(
      String scene, String subject, String token, Type resultType, Callable<T> body)
      throws Exception {
    Objects.requireNonNull(body, "body");
    require(scene, subject, token);
    try {
      return (T)
          executor.execute(
              plan(SUBMIT_SCOPE + scene, settings, resultType),
              recordKey(token, subject),
              null,
              body::call);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new java.lang.reflect.UndeclaredThrowableException(t);
    }
  }

  /**
   * {@link #execute(String, String, String, Type, Callable)} for a body whose outcome arrives
   * later: the outcome is recorded when the stage completes, and a failed stage settles the claim
   * as a thrown exception does. Every refusal ({@link SubmitTokenException}, in progress, already
   * submitted, store failure) fails the returned stage.
   */
  @SuppressWarnings("unchecked")
  public <T> CompletionStage<T> executeAsync(
      String scene,
      String subject,
      String token,
      Type resultType,
      Supplier<? extends CompletionStage<T>> body) {
    Objects.requireNonNull(body, "body");
    try {
      require(scene, subject, token);
      return (CompletionStage<T>)
          executor.execute(
              plan(SUBMIT_SCOPE + scene, settings, resultType, true),
              recordKey(token, subject),
              null,
              body::get);
    } catch (Throwable t) {
      return CompletableFuture.failedFuture(t);
    }
  }

  /**
   * {@link #executeAsync} without blocking the calling thread at any step: the token check, the
   * claim, a wait and the recording use the store's non-blocking face; {@code body} runs on the
   * thread that completes the claim (the caller's, when the store answers at once).
   */
  @SuppressWarnings("unchecked")
  public <T> CompletionStage<T> executeDeferred(
      String scene,
      String subject,
      String token,
      Type resultType,
      Supplier<? extends CompletionStage<T>> body) {
    Objects.requireNonNull(body, "body");
    try {
      checkScene(scene);
      CompletionStage<Boolean> issued =
          !wellFormed(token) || subject == null
              ? CompletableFuture.completedFuture(false)
              : issuedAsync(scene, subject, token);
      OperationPlan plan = plan(SUBMIT_SCOPE + scene, settings, resultType, true);
      return issued.thenCompose(
          ok -> {
            if (!ok) {
              return CompletableFuture.failedFuture(new SubmitTokenException(SUBMIT_SCOPE + scene));
            }
            return executor
                .deferred()
                .execute(plan, recordKey(token, subject), null, body)
                .thenApply(v -> (T) v);
          });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** {@link #isIssued}, without blocking; a store failure under fail-open counts as issued. */
  private CompletionStage<Boolean> issuedAsync(String scene, String subject, String token) {
    IdempotencyStore s = idempotency.config().store(settings.store());
    RecordKey key =
        RecordKey.of(ISSUED_SCOPE + scene, recordKey(token, subject)).fittedTo(s.maxKeyLength());
    return AsyncStores.of(s)
        .readAsync(key)
        .handle(
            (rec, error) -> {
              if (error == null) {
                return rec.isPresent() && rec.get().isCompleted();
              }
              Throwable cause = error.getCause() != null ? error.getCause() : error;
              if (cause instanceof IdempotencyException e
                  && !(cause instanceof IdempotencyStoreException)) {
                throw e;
              }
              if (idempotency.config().storeFailurePolicy() == StoreFailurePolicy.FAIL_OPEN) {
                return true;
              }
              throw new IdempotencyStoreException(
                  "the idempotency store failed while checking a submit token: "
                      + cause.getClass().getName(),
                  key.scope(),
                  null,
                  cause);
            });
  }

  /** The instance these tokens run on. */
  public Idempotency idempotency() {
    return idempotency;
  }

  /** Store, ttl (of an issued token and of a used one's outcome), lease, waiting, duplicates. */
  public IdempotencySettings settings() {
    return settings;
  }

  private OperationPlan plan(String scope, IdempotencySettings settings, Type resultType) {
    return plan(scope, settings, resultType, false);
  }

  private OperationPlan plan(
      String scope, IdempotencySettings settings, Type resultType, boolean async) {
    IdempotencyPolicy.Builder policy =
        IdempotencyPolicy.builder(scope).settings(settings).resultType(resultType);
    if (!replayHooked) {
      policy.withoutReplayHook();
    }
    return OperationPlan.of(
        policy.build(),
        idempotency.config(),
        async,
        Thread.currentThread().getContextClassLoader());
  }

  /**
   * The token, then a digest of the subject: binds the record to both without storing the subject.
   */
  private static String recordKey(String token, String subject) {
    return token + "." + subjectDigest(subject);
  }

  /**
   * 22 base64url characters of the SHA-256 of the subject's UTF-16 code units: a fixed part of the
   * tokens' stored format (a payload fingerprint's format may change between versions; a token's
   * record key must not).
   */
  private static String subjectDigest(String subject) {
    byte[] units = new byte[subject.length() * 2];
    for (int i = 0; i < subject.length(); i++) {
      units[2 * i] = (byte) (subject.charAt(i) >>> 8);
      units[2 * i + 1] = (byte) subject.charAt(i);
    }
    try {
      byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(units);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(d, 16));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static boolean wellFormed(String token) {
    if (token == null || token.length() != TOKEN_LENGTH) {
      return false;
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (!(c >= 'A' && c <= 'Z'
          || c >= 'a' && c <= 'z'
          || c >= '0' && c <= '9'
          || c == '-'
          || c == '_')) {
        return false;
      }
    }
    return true;
  }

  private static void checkScene(String scene) {
    if (scene == null || scene.isBlank()) {
      throw new IllegalArgumentException(
          "scene must not be blank: name the form, e.g. \"orders.new\"");
    }
  }

  /**
   * Validating builder: the {@link IdempotencySettings} setters, with {@link #DEFAULT_TTL} as the
   * ttl and {@link OnInProgress#WAIT} by default; the lease and wait timeout default to the
   * configuration's. The ttl is how long an issued token stays valid and how long a used one
   * replays its outcome; {@code onDuplicate} is what a submit after the token was used gets ({@code
   * REPLAY} the first outcome, or {@code REJECT}); {@code onInProgress} what a submit while another
   * with the same token runs gets.
   */
  public static final class Builder extends IdempotencySettings.AbstractBuilder<Builder> {
    private final Idempotency idempotency;
    private boolean replayHooked = true;

    private Builder(Idempotency idempotency) {
      this.idempotency = Objects.requireNonNull(idempotency, "idempotency must not be null");
      ttl(DEFAULT_TTL);
      onInProgress(OnInProgress.WAIT);
    }

    @Override
    protected Builder self() {
      return this;
    }

    /**
     * The configuration's {@link ReplayHook} is not called for these tokens' replays (see {@link
     * IdempotencyPolicy.Builder#withoutReplayHook()}): for the web filter, whose recorded values
     * are its encoded responses.
     */
    public Builder withoutReplayHook() {
      this.replayHooked = false;
      return this;
    }

    /**
     * @throws IdempotencyConfigurationException when the named store is not configured
     */
    public SubmitTokens build() {
      return new SubmitTokens(this);
    }
  }
}
