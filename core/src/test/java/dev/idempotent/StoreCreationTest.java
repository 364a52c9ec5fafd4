package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.spi.IdempotencyStoreProvider;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zero-code store, created from {@code idempotent.properties} by a provider found through
 * {@link java.util.ServiceLoader}: here {@link FakeStoreProvider}, visible only to a class loader
 * each test builds over a temporary directory, so that other tests still see core without any store
 * module.
 */
class StoreCreationTest {
  private static final IdempotencyPolicy POLICY = IdempotencyPolicy.builder("creation.op").build();

  @TempDir Path dir;

  @BeforeEach
  @AfterEach
  void forget() {
    Idempotency.reset();
    FakeStoreProvider.attempts.set(0);
    FakeStoreProvider.reachable = true;
  }

  private ClassLoader loaderWith(String properties) throws IOException {
    Path services = Files.createDirectories(dir.resolve("META-INF/services"));
    Files.writeString(
        services.resolve(IdempotencyStoreProvider.class.getName()),
        FakeStoreProvider.class.getName() + "\n");
    Files.writeString(dir.resolve("idempotent.properties"), properties);
    return new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
  }

  private static <T> T withLoader(ClassLoader loader, Callable<T> body) throws Exception {
    Thread t = Thread.currentThread();
    ClassLoader previous = t.getContextClassLoader();
    t.setContextClassLoader(loader);
    try {
      return body.call();
    } finally {
      t.setContextClassLoader(previous);
    }
  }

  private record Outcome(String thrown, long millis) {}

  @Test
  void sixConcurrentFirstCallersShareOneAttemptAndEachFailsAsAStoreFailureWithinAboutTwiceItsTime()
      throws Exception {
    ClassLoader loader = loaderWith("idempotent.store=fake\nidempotent.fake.delay=1s\n");
    FakeStoreProvider.reachable = false;
    ExecutorService pool = Executors.newFixedThreadPool(6);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Outcome>> calls = new ArrayList<>();
    try {
      for (int i = 0; i < 6; i++) {
        calls.add(
            pool.submit(
                () ->
                    withLoader(
                        loader,
                        () -> {
                          go.await();
                          long start = System.nanoTime();
                          String thrown;
                          try {
                            Idempotency.global().execute(POLICY, "k", () -> "ran");
                            thrown = "nothing";
                          } catch (Exception e) {
                            thrown = e.getClass().getSimpleName() + ": " + e.getMessage();
                          }
                          return new Outcome(thrown, (System.nanoTime() - start) / 1_000_000);
                        })));
      }
      go.countDown();
      for (Future<Outcome> call : calls) {
        Outcome o = call.get(30, TimeUnit.SECONDS);
        assertThat(o.thrown())
            .startsWith("IdempotencyStoreException")
            .contains("cannot reach the fake backend");
        assertThat(o.millis())
            .as("each caller failed within about twice the 1 s attempt")
            .isLessThan(2_500);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(FakeStoreProvider.attempts).as("one attempt, shared by all six").hasValue(1);
  }

  @Test
  void failOpenRunsTheMethodWhileTheStoreCannotBeCreated() throws Exception {
    ClassLoader loader =
        loaderWith("idempotent.store=fake\nidempotent.on-store-failure=fail-open\n");
    FakeStoreProvider.reachable = false;
    String result =
        withLoader(
            loader, () -> Idempotency.global().execute(POLICY, "k", () -> "ran unprotected"));
    assertThat(result).isEqualTo("ran unprotected");
  }

  @Test
  void afterAFailedAttemptTheFailureIsRepeatedForABackoffThenCreationIsTriedAgain()
      throws Exception {
    ClassLoader loader = loaderWith("idempotent.store=fake\n");
    FakeStoreProvider.reachable = false;
    Idempotency idem = withLoader(loader, Idempotency::global);
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> idem.execute(POLICY, "k", () -> "ran"))
          .isInstanceOf(IdempotencyStoreException.class)
          .hasMessageContaining("cannot reach the fake backend");
    }
    assertThat(FakeStoreProvider.attempts).as("no new attempt during the backoff").hasValue(1);

    FakeStoreProvider.reachable = true;
    String result = null;
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (result == null && System.nanoTime() < giveUp) {
      try {
        result = idem.execute(POLICY, "k", () -> "ran");
      } catch (IdempotencyStoreException stillBackingOff) {
        Thread.sleep(100);
      }
    }
    assertThat(result).isEqualTo("ran");
    assertThat(FakeStoreProvider.attempts).hasValue(2);
    assertThat(idem.execute(POLICY, "k", () -> "again"))
        .as("the created store is used from then on")
        .isEqualTo("ran");
  }

  @Test
  void verifyCreatesTheStoreNowAndFailsFastWithTheCause() throws Exception {
    ClassLoader loader = loaderWith("idempotent.store=fake\n");
    FakeStoreProvider.reachable = false;
    assertThatThrownBy(() -> withLoader(loader, () -> Idempotency.global().verify()))
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("cannot reach the fake backend")
        .hasRootCauseMessage("cannot reach the fake backend at fake://nowhere");

    Idempotency.reset();
    FakeStoreProvider.reachable = true;
    Idempotency verified = withLoader(loader, () -> Idempotency.global().verify());
    assertThat(verified.config().defaultStore()).isInstanceOf(RealClockStore.class);
  }

  @Test
  void aWrongSettingStaysAConfigurationError() throws Exception {
    ClassLoader loader = loaderWith("idempotent.store=fake\nidempotent.fake.fail=bad-setting\n");
    assertThatThrownBy(() -> withLoader(loader, Idempotency::global))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.fake.fail");
    assertThatThrownBy(() -> withLoader(loader, Idempotency::global))
        .as("repeated for a while, not tried again")
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.fake.fail");
    assertThat(FakeStoreProvider.attempts).hasValue(1);
  }

  @Test
  void maxHoldIsReadFromThePropertiesAndValidated() throws Exception {
    ClassLoader loader = loaderWith("idempotent.store=fake\nidempotent.max-hold=2m\n");
    assertThat(withLoader(loader, Idempotency::global).config().maxHold())
        .isEqualTo(Duration.ofMinutes(2));
    Idempotency.reset();
    Files.writeString(
        dir.resolve("idempotent.properties"), "idempotent.store=fake\nidempotent.max-hold=0s\n");
    assertThatThrownBy(() -> withLoader(loader, Idempotency::global))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.max-hold");
    assertThatThrownBy(() -> IdempotencyConfig.builder().maxHold(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxHold");
    assertThat(IdempotencyConfig.builder().defaultStore(new RealClockStore()).build().maxHold())
        .isEqualTo(IdempotencyConfig.DEFAULT_MAX_HOLD)
        .isEqualTo(Duration.ofMinutes(15));
  }

  @Test
  void installResetAndShutdownCloseOnlyTheStoresTheLibraryCreated() throws Exception {
    ClassLoader loader = loaderWith("idempotent.store=fake\n");
    RealClockStore created =
        (RealClockStore) withLoader(loader, Idempotency::global).config().defaultStore();
    Idempotency.install(
        IdempotencyConfig.from(Idempotency.global().config())
            .defaultTtl(Duration.ofHours(1))
            .build());
    assertThat(created.closed).as("still used by the installed configuration").isFalse();

    RealClockStore users = new RealClockStore();
    Idempotency.install(IdempotencyConfig.builder().defaultStore(users).build());
    assertThat(created.closed).as("install closed the library's store it replaced").isTrue();
    Idempotency.reset();
    assertThat(users.closed).as("a store the user passed in is never closed").isFalse();

    RealClockStore second =
        (RealClockStore) withLoader(loader, Idempotency::global).config().defaultStore();
    Idempotency.reset();
    assertThat(second.closed).as("reset closed the library's store").isTrue();

    RealClockStore third =
        (RealClockStore) withLoader(loader, Idempotency::global).config().defaultStore();
    Idempotency.shutdown();
    assertThat(third.closed).as("shutdown closed the library's store").isTrue();
    assertThat(users.closed).isFalse();
  }

  @Test
  void aNearCacheInFrontOfAStoreCreatedOnFirstUseAnswersReplaysAndIsVerifiedAndClosedWithIt()
      throws Exception {
    ClassLoader loader =
        loaderWith("idempotent.store=fake\nidempotent.near-cache.maximum-size=100\n");
    FakeStoreProvider.reachable = false;
    Idempotency idem = withLoader(loader, Idempotency::global);
    assertThat(idem.config().defaultStore())
        .isInstanceOf(dev.idempotent.internal.NearCacheStore.class);
    assertThatThrownBy(idem::verify)
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("cannot reach the fake backend");

    FakeStoreProvider.reachable = true;
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (true) {
      try {
        idem.verify();
        break;
      } catch (IdempotencyStoreException stillBackingOff) {
        assertThat(System.nanoTime() - giveUp).as("created within 5 s").isNegative();
        Thread.sleep(100);
      }
    }
    RealClockStore created =
        (RealClockStore)
            ((dev.idempotent.internal.LazilyCreatedStore)
                    ((dev.idempotent.internal.NearCacheStore) idem.config().defaultStore())
                        .delegate())
                .get();
    int claims = created.claims.get();
    int[] runs = {0};
    for (int i = 0; i < 4; i++) {
      assertThat(idem.execute(POLICY, "k", () -> ++runs[0])).isEqualTo(1);
    }
    assertThat(created.claims.get() - claims)
        .as("one to run, one to learn the outcome; then from memory")
        .isEqualTo(2);

    Idempotency.install(
        IdempotencyConfig.from(idem.config()).defaultTtl(Duration.ofHours(1)).build());
    assertThat(created.closed).as("still used, behind the same near cache").isFalse();
    Idempotency.install(IdempotencyConfig.builder().defaultStore(new RealClockStore()).build());
    assertThat(created.closed)
        .as("install closed the library's store behind the near cache it replaced")
        .isTrue();
  }
}
