package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The library's threads end with {@link Idempotency#shutdown()} and never hold an application's
 * class loader.
 */
class ShutdownTest {
  private static List<Thread> libraryThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("idempotent-"))
        .toList();
  }

  @Test
  void afterShutdownNoLibraryThreadIsAliveAndALaterCallStartsWhatItNeeds() throws Exception {
    RealClockStore store = new RealClockStore();
    TestStore failing = new TestStore();
    failing.failComplete = new IllegalStateException("store down while recording");
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).store("failing", failing).build());
    IdempotencyPolicy renewed =
        IdempotencyPolicy.builder("shutdown.renewed").lease(Duration.ofMillis(300)).build();
    IdempotencyPolicy retried =
        IdempotencyPolicy.builder("shutdown.retried")
            .store("failing")
            .lease(Duration.ofSeconds(10))
            .build();

    ClassLoader application = new URLClassLoader(new URL[0], getClass().getClassLoader());
    AtomicReference<List<Thread>> seenWhileRunning = new AtomicReference<>();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                idem.execute(retried, "k", () -> "recorded later");
                idem.execute(
                    renewed,
                    "k",
                    () -> {
                      Thread.sleep(400);
                      seenWhileRunning.set(libraryThreads());
                      return "renewed";
                    });
              } catch (Throwable t) {
                failed.set(t);
              }
            },
            "application-thread");
    caller.setContextClassLoader(application);
    caller.start();
    caller.join(10_000);
    assertThat(failed.get()).isNull();

    assertThat(seenWhileRunning.get())
        .extracting(Thread::getName)
        .contains(
            "idempotent-lease-renewer", "idempotent-lease-worker", "idempotent-completion-retry");
    assertThat(seenWhileRunning.get())
        .allSatisfy(
            t -> {
              assertThat(t.isDaemon()).isTrue();
              assertThat(t.getContextClassLoader())
                  .as("the context class loader of %s", t.getName())
                  .isNotSameAs(application)
                  .isSameAs(ClassLoader.getSystemClassLoader());
            });

    Idempotency.shutdown();
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    while (!libraryThreads().isEmpty() && System.nanoTime() < giveUp) {
      Thread.sleep(20);
    }
    assertThat(libraryThreads()).as("no idempotent-* thread after shutdown").isEmpty();

    int before = store.renewals.get();
    assertThat(
            idem.execute(
                renewed,
                "later",
                () -> {
                  Thread.sleep(400);
                  return "renewed again";
                }))
        .isEqualTo("renewed again");
    assertThat(store.renewals.get())
        .as("a call after shutdown is renewed again")
        .isGreaterThan(before);
    Idempotency.shutdown();
  }
}
