package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.redisson.internal.RedissonStoreProvider;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import dev.idempotent.spi.StoreSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hung Redis (a paused {@code redis-server}) makes every command time out, and Redisson's timeout
 * messages list the command's arguments, the record name with the whole key among them. Neither the
 * exceptions a caller gets (messages, {@code toString}, causes, suppressed) nor anything logged may
 * contain the key.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedissonKeyRedactionTest {
  private static final String CARD = "4111111111111111";
  private static final String EMAIL = "alice@example.com";
  private static final String RAW_KEY = "card=" + CARD + ";user=" + EMAIL;
  private static final Duration LEASE = Duration.ofSeconds(20);

  private final ByteArrayOutputStream log = new ByteArrayOutputStream();
  private PrintStream originalErr;
  private RedisServerProcess server;
  private IdempotencyStore store;

  @BeforeEach
  void start() throws Exception {
    originalErr = System.err;
    System.setErr(new PrintStream(new Tee(originalErr, log), true, StandardCharsets.UTF_8));
    server = RedisServerProcess.launch();
    store =
        new RedissonStoreProvider()
            .create(
                StoreSettings.of(
                    Map.of(
                        dev.idempotent.redisson.RedissonStoreSettings.ADDRESS.name(),
                        server.url(),
                        dev.idempotent.redisson.RedissonStoreSettings.TIMEOUT.name(),
                        "500ms")));
  }

  @AfterEach
  void stop() throws Exception {
    try {
      if (store != null) {
        store.close();
      }
      if (server != null) {
        server.close();
      }
    } finally {
      System.setErr(originalErr);
    }
  }

  @Test
  void storeFailuresNameTheRedissonErrorAndTheNodeButNeverTheKey() throws Exception {
    RecordKey key = RecordKey.of("payments", RAW_KEY);
    assertThat(store.claim(key, "owner-1", "fp", LEASE).isAcquired()).isTrue();
    List<Throwable> errors = new ArrayList<>();
    server.pause();
    try {
      errors.add(catchThrowable(() -> store.claim(key, "owner-2", "fp", LEASE)));
      errors.add(
          catchThrowable(
              () -> store.complete(key, "owner-1", CARD.getBytes(StandardCharsets.UTF_8), LEASE)));
      errors.add(catchThrowable(() -> store.renew(key, "owner-1", LEASE)));
      errors.add(catchThrowable(() -> store.release(key, "owner-1")));
      errors.add(catchThrowable(() -> store.read(key)));
      store.awaitChange(
          key, Duration.ofSeconds(2)); // a spurious early return or a failure, never a hang
    } catch (RuntimeException e) {
      errors.add(e);
    } finally {
      server.resume();
    }

    assertThat(errors).hasSizeGreaterThanOrEqualTo(5).doesNotContainNull();
    for (Throwable e : errors) {
      assertKeyNowhereIn(e);
      assertThat(e)
          .isInstanceOf(IdempotencyStoreException.class)
          .hasMessageStartingWith("Redis ")
          .hasMessageContaining("Exception")
          .hasMessageContaining(Integer.toString(server.port()))
          .hasMessageContaining(key.redactedKey());
    }
    assertThat(logged()).doesNotContain(CARD).doesNotContain(EMAIL);
  }

  @Test
  void callsOnAHungRedisNeverShowTheKeyInExceptionsOrLogs() throws Exception {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("payments").resultType(String.class).lease(LEASE).build();
    Idempotency failClosed = idempotency(StoreFailurePolicy.FAIL_CLOSED);
    Idempotency failOpen = idempotency(StoreFailurePolicy.FAIL_OPEN);
    Throwable closed;
    String open;
    server.pause();
    try {
      closed = catchThrowable(() -> failClosed.execute(policy, RAW_KEY, () -> "ran"));
      open = failOpen.execute(policy, RAW_KEY + "-open", () -> "ran unprotected");
    } finally {
      server.resume();
    }
    assertThat(closed)
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("fail-closed")
        .hasMessageContaining("RedisResponseTimeoutException");
    assertKeyNowhereIn(closed);
    assertThat(open).isEqualTo("ran unprotected");

    // the store hangs after the method ran: the completion fails, then is recorded in the
    // background
    String completedKey = RAW_KEY + "-completed";
    assertThat(
            failClosed.execute(
                policy,
                completedKey,
                () -> {
                  server.pause();
                  return "ran";
                }))
        .isEqualTo("ran");
    server.resume();
    RecordKey recorded = RecordKey.of("payments", completedKey);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!store.read(recorded).map(r -> r.status() == RecordStatus.COMPLETED).orElse(false)) {
      assertThat(System.nanoTime() - deadline)
          .as("recorded in the background after Redis ran again")
          .isNegative();
      Thread.sleep(100);
    }

    String logged = logged();
    assertThat(logged)
        .as("log")
        .contains("running unprotected")
        .contains("recording the outcome of payments/key#");
    assertThat(logged).as("log").doesNotContain(CARD).doesNotContain(EMAIL);
  }

  private Idempotency idempotency(StoreFailurePolicy failurePolicy) {
    return Idempotency.create(
        IdempotencyConfig.builder().defaultStore(store).storeFailurePolicy(failurePolicy).build());
  }

  private String logged() {
    System.err.flush();
    return log.toString(StandardCharsets.UTF_8);
  }

  /**
   * Every message, {@code toString}, cause and suppressed exception of {@code error}, at any depth.
   */
  private static void assertKeyNowhereIn(Throwable error) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> todo = new ArrayList<>(List.of(error));
    while (!todo.isEmpty()) {
      Throwable t = todo.remove(todo.size() - 1);
      if (t == null || !seen.add(t)) {
        continue;
      }
      for (String text : new String[] {t.getMessage(), t.getLocalizedMessage(), t.toString()}) {
        assertThat(String.valueOf(text))
            .as("text of %s", t.getClass().getName())
            .doesNotContain(CARD)
            .doesNotContain(EMAIL);
      }
      todo.add(t.getCause());
      todo.addAll(List.of(t.getSuppressed()));
    }
  }

  /** Writes to the real stream and to the capture. */
  private static final class Tee extends OutputStream {
    private final OutputStream first;
    private final OutputStream second;

    Tee(OutputStream first, OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public synchronized void write(int b) throws IOException {
      first.write(b);
      second.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      first.write(b, off, len);
      second.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      first.flush();
      second.flush();
    }
  }
}
