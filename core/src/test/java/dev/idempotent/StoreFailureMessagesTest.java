package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A store whose exceptions quote the key (as Redisson's list a command's arguments): the executor's
 * own messages and log lines, at every level, name such an exception by its class only, never by
 * its message.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StoreFailureMessagesTest {
  private static final String SECRET = "4111111111111111";
  private static final String RAW_KEY = "card=" + SECRET + ";user=alice@example.com";
  private static final IdempotencyPolicy POLICY =
      IdempotencyPolicy.builder("payments")
          .resultType(String.class)
          .lease(Duration.ofMillis(300))
          .build();

  private final QuotingStore store = new QuotingStore();
  private final ByteArrayOutputStream log = new ByteArrayOutputStream();
  private PrintStream originalErr;

  @BeforeEach
  void captureLog() {
    originalErr = System.err;
    System.setErr(new PrintStream(new TeeStream(originalErr, log), true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restoreLog() {
    System.setErr(originalErr);
  }

  private String logged() {
    System.err.flush();
    return log.toString(StandardCharsets.UTF_8);
  }

  private static Idempotency idempotency(IdempotencyStore store, StoreFailurePolicy failurePolicy) {
    return Idempotency.create(
        IdempotencyConfig.builder().defaultStore(store).storeFailurePolicy(failurePolicy).build());
  }

  @Test
  void failClosedMessageNamesTheStoreExceptionByItsClassOnly() {
    store.failClaim = true;
    Throwable error =
        catchThrowable(
            () ->
                idempotency(store, StoreFailurePolicy.FAIL_CLOSED)
                    .execute(POLICY, RAW_KEY, () -> "ran"));

    assertThat(error)
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining(IllegalStateException.class.getName())
        .hasMessageNotContaining(SECRET);
    assertThat(error.toString()).doesNotContain(SECRET);
    assertThat(error.getCause())
        .as("the store's exception is attached for diagnosis")
        .isSameAs(store.lastFailure);
  }

  @Test
  void logLinesOfEveryStoreFailureNameTheExceptionByItsClassOnly() throws Exception {
    store.failClaim = true;
    assertThat(
            idempotency(store, StoreFailurePolicy.FAIL_OPEN).execute(POLICY, RAW_KEY, () -> "ran"))
        .isEqualTo("ran");
    store.failClaim = false;

    Idempotency idem = idempotency(store, StoreFailurePolicy.FAIL_CLOSED);
    store.failRenew = true;
    store.failComplete = true;
    assertThat(
            idem.execute(
                POLICY,
                RAW_KEY + "-1",
                () -> {
                  Thread.sleep(400); // past a third of the lease: a renewal fails
                  return "ran";
                }))
        .isEqualTo("ran");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!logged().contains("gave up recording") && System.nanoTime() < deadline) {
      Thread.sleep(50); // the background retries of the completion give up after the lease
    }
    store.failRelease = true;
    catchThrowable(
        () ->
            idem.execute(
                POLICY,
                RAW_KEY + "-2",
                () -> {
                  throw new IllegalArgumentException("not recorded");
                }));

    String logged = logged();
    assertThat(logged)
        .as("what was logged")
        .contains(
            "running unprotected",
            "renewing the lease",
            "recording the outcome",
            "gave up recording",
            "releasing");
    assertThat(logged).as("what was logged").doesNotContain(SECRET);
  }

  /** Fails the chosen operations with a message that quotes the whole key. */
  static final class QuotingStore implements IdempotencyStore {
    final TestStore inner = new TestStore();
    volatile boolean failClaim;
    volatile boolean failComplete;
    volatile boolean failRelease;
    volatile boolean failRenew;
    volatile RuntimeException lastFailure;

    private void failIf(boolean fail, String command, RecordKey key) {
      if (fail) {
        lastFailure =
            new IllegalStateException(
                "timeout of command "
                    + command
                    + ", params: ["
                    + key.scope()
                    + ":"
                    + key.key()
                    + "]");
        throw lastFailure;
      }
    }

    @Override
    public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      failIf(failClaim, "CLAIM", key);
      return inner.claim(key, ownerToken, fingerprint, lease);
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      failIf(failComplete, "COMPLETE", key);
      return inner.complete(key, ownerToken, outcome, ttl);
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      failIf(failRelease, "RELEASE", key);
      return inner.release(key, ownerToken);
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      failIf(failRenew, "RENEW", key);
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
  }

  /** Writes to the real stream and to the capture. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream first;
    private final java.io.OutputStream second;

    TeeStream(java.io.OutputStream first, java.io.OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public synchronized void write(int b) throws java.io.IOException {
      first.write(b);
      second.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
      first.write(b, off, len);
      second.write(b, off, len);
    }

    @Override
    public void flush() throws java.io.IOException {
      first.flush();
      second.flush();
    }
  }
}
