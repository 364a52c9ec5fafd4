package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.Idempotent;
import dev.idempotent.TestStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Woven and programmatic calls take the same path: one executor per instance, plans resolved once
 * and checked.
 */
class OneCorePathTest {
  private static final String SHARED_SCOPE = "one-path.shared";
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  /**
   * Counts how often a plan asks the store for its key length, which happens once per plan built.
   */
  static final class CountingStore implements IdempotencyStore {
    final TestStore inner = new TestStore();
    final AtomicInteger keyLengthLookups = new AtomicInteger();

    @Override
    public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      return inner.claim(key, ownerToken, fingerprint, lease);
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      return inner.complete(key, ownerToken, outcome, ttl);
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      return inner.release(key, ownerToken);
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      return inner.renew(key, ownerToken, lease);
    }

    @Override
    public boolean delete(RecordKey key) {
      throw new UnsupportedOperationException("not used by this test");
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      return inner.read(key);
    }

    @Override
    public int maxKeyLength() {
      keyLengthLookups.incrementAndGet();
      return inner.maxKeyLength();
    }
  }

  @Test
  void aPolicysPlanIsBuiltOnceAndAgainOnlyForAnotherInstanceModeOrContextClassLoader()
      throws Exception {
    CountingStore store = new CountingStore();
    IdempotencyConfig config = IdempotencyConfig.builder().defaultStore(store).build();
    Idempotency idem = Idempotency.create(config);
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("one-path.cached").resultType(String.class).build();
    for (int i = 0; i < 5; i++) {
      assertThat(idem.execute(policy, "k" + i, () -> "r" + runs.incrementAndGet()))
          .isEqualTo("r" + (i + 1));
    }
    assertThat(idem.execute(policy, "k0", () -> "again")).isEqualTo("r1");
    assertThat(store.keyLengthLookups).as("one plan for six calls").hasValue(1);

    Idempotency other = Idempotency.create(config);
    assertThat(other.execute(policy, "k0", () -> "other")).isEqualTo("r1");
    assertThat(store.keyLengthLookups).as("another instance builds its own plan").hasValue(2);
    assertThat(
            other
                .executeAsync(
                    policy, "k-async", null, () -> CompletableFuture.completedFuture("async"))
                .toCompletableFuture()
                .get())
        .isEqualTo("async");
    assertThat(store.keyLengthLookups).as("the async form has its own plan").hasValue(3);

    Thread thread = Thread.currentThread();
    ClassLoader saved = thread.getContextClassLoader();
    try (URLClassLoader loader = new URLClassLoader(new URL[0], saved)) {
      thread.setContextClassLoader(loader);
      assertThat(other.execute(policy, "k1", () -> "loader")).isEqualTo("r2");
    } finally {
      thread.setContextClassLoader(saved);
    }
    assertThat(store.keyLengthLookups)
        .as("recorded failures read back through the new context loader")
        .hasValue(4);
  }

  static final class NotSerializable {
    @Override
    public String toString() {
      return "not serializable";
    }
  }

  @Test
  void aPolicyWhoseResultTypeTheCodecCannotRecordFailsBeforeTheBodyRunsAsAWovenMethodDoes() {
    Idempotency idem =
        Idempotency.create(IdempotencyConfig.builder().defaultStore(new TestStore()).build());
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("one-path.unencodable").resultType(NotSerializable.class).build();
    Callable<NotSerializable> body =
        () -> {
          runs.incrementAndGet();
          return new NotSerializable();
        };
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> idem.execute(policy, "k", body))
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining("one-path.unencodable")
          .hasMessageContaining(NotSerializable.class.getName())
          .hasMessageContaining("Serializable")
          .hasMessageContaining("jackson");
    }
    assertThat(runs).hasValue(0);
  }

  @Test
  void resultsDeclaredVoidAreRecordedWovenOrProgrammatic() throws Throwable {
    Idempotency idem =
        Idempotency.install(IdempotencyConfig.builder().defaultStore(new TestStore()).build());
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("one-path.void").resultType(Void.class).build();
    for (int i = 0; i < 2; i++) {
      assertThat(
              idem.executeAsync(
                      policy,
                      "k",
                      null,
                      () -> {
                        runs.incrementAndGet();
                        return CompletableFuture.<Void>completedFuture(null);
                      })
                  .toCompletableFuture()
                  .get())
          .isNull();
    }
    MethodPlan plan =
        new MethodPlan(Woven.class.getDeclaredMethod("completes", String.class), null);
    for (int i = 0; i < 2; i++) {
      Object stage =
          plan.invoke(
              new Woven(),
              new Object[] {"k"},
              () -> {
                runs.incrementAndGet();
                return CompletableFuture.<Void>completedFuture(null);
              });
      assertThat(((CompletableFuture<?>) stage).get()).isNull();
    }
    assertThat(runs).as("each ran once, the repeats replayed").hasValue(2);
  }

  @SuppressWarnings("unused")
  static final class Woven {
    @Idempotent(scope = "one-path.void-woven", key = "#p0")
    java.util.concurrent.CompletionStage<Void> completes(String id) {
      return CompletableFuture.completedFuture(null);
    }

    @Idempotent(scope = SHARED_SCOPE, key = "#p0")
    Object unrecordable(String id) {
      return new Object();
    }
  }

  @Test
  void wovenAndProgrammaticCallsOnOneInstanceShareOneExecutor() throws Throwable {
    Idempotency idem =
        Idempotency.install(IdempotencyConfig.builder().defaultStore(new TestStore()).build());
    Method method = Woven.class.getDeclaredMethod("unrecordable", String.class);
    MethodPlan plan = new MethodPlan(method, null);
    IdempotencyPolicy policy = IdempotencyPolicy.builder(SHARED_SCOPE).build();
    List<String> errors =
        errorsLogged(
            SHARED_SCOPE,
            () -> {
              try {
                plan.invoke(new Woven(), new Object[] {"woven"}, () -> new Object());
                idem.execute(policy, "programmatic", () -> new Object());
              } catch (Throwable t) {
                throw new AssertionError(t);
              }
            });
    assertThat(errors)
        .as(
            "the unrecordable outcome of one operation and type is logged once per instance,"
                + " whichever path meets it")
        .hasSize(1);
  }

  private static List<String> errorsLogged(String scope, Runnable calls) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      calls.run();
    } finally {
      System.setErr(original);
    }
    List<String> lines = new ArrayList<>();
    for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
      if (line.contains("ERROR") && line.contains(scope)) {
        lines.add(line);
      }
    }
    original.print(captured.toString(StandardCharsets.UTF_8));
    return lines;
  }
}
