package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Idempotency#inspect} and {@link Idempotency#delete}, on the fake-clock store. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AdministrationTest {
  private static final String SECRET = "4111111111111111";
  private static final String KEY = "card=" + SECRET;
  private static final IdempotencyPolicy POLICY =
      IdempotencyPolicy.builder("payments.charge")
          .resultType(Receipt.class)
          .ttl(Duration.ofMinutes(10))
          .build();

  record Receipt(String id) implements Serializable {}

  private final TestStore store = new TestStore();
  private final TestStore archive = new TestStore();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();
  private final ExecutorService pool = Executors.newSingleThreadExecutor();
  private final ByteArrayOutputStream log = new ByteArrayOutputStream();
  private final PrintStream originalErr = System.err;
  private Idempotency idem;

  @BeforeEach
  void setUp() {
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .store("archive", archive)
                .listener(events::add)
                .build());
  }

  @AfterEach
  void tearDown() {
    System.setErr(originalErr);
    pool.shutdownNow();
  }

  private String logged() {
    System.err.flush();
    return log.toString(StandardCharsets.UTF_8);
  }

  private Receipt charge(String key) throws Exception {
    return idem.execute(POLICY, key, () -> new Receipt("r-" + runs.incrementAndGet()));
  }

  @Test
  void inspectShowsACompletedRecordWithoutItsOutcomeOrKey() throws Exception {
    charge(KEY);
    RecordKey stored = RecordKey.of("payments.charge", KEY);
    int outcomeSize = store.read(stored).orElseThrow().outcome().length;

    IdempotencyRecordView view = idem.inspect("", "payments.charge", KEY).orElseThrow();

    assertThat(view.store()).isEmpty();
    assertThat(view.scope()).isEqualTo("payments.charge");
    assertThat(view.redactedKey()).isEqualTo(stored.redactedKey()).doesNotContain(SECRET);
    assertThat(view.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(view.outcome()).isEqualTo(IdempotencyRecordView.Outcome.VALUE);
    assertThat(view.outcomeSize()).isEqualTo(outcomeSize).isPositive();
    assertThat(view.fingerprinted()).isFalse();
    assertThat(view.expiresIn()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(10));
    assertThat(view.toString()).doesNotContain(SECRET).doesNotContain("r-1");
    assertThat(idem.inspect(null, "payments.charge", KEY))
        .as("null is the default store too")
        .contains(view);
  }

  @Test
  void inspectShowsARecordedFailureAndAFingerprint() {
    IdempotencyPolicy recording =
        IdempotencyPolicy.builder("payments.refund")
            .resultType(Receipt.class)
            .recordFailures(IllegalStateException.class)
            .build();
    assertThatThrownBy(
            () ->
                idem.execute(
                    recording,
                    "k",
                    new Receipt("payload"),
                    () -> {
                      throw new IllegalStateException("card declined");
                    }))
        .isInstanceOf(IllegalStateException.class);

    IdempotencyRecordView view = idem.inspect("", "payments.refund", "k").orElseThrow();

    assertThat(view.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(view.outcome()).isEqualTo(IdempotencyRecordView.Outcome.FAILURE);
    assertThat(view.fingerprinted()).isTrue();
  }

  @Test
  void inspectShowsAClaimInProgressAndNothingForAFreeKey() {
    RecordKey key = RecordKey.of("payments.charge", "held");
    store.claim(key, "owner-1", "fp", Duration.ofSeconds(30));

    IdempotencyRecordView view = idem.inspect("", "payments.charge", "held").orElseThrow();

    assertThat(view.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(view.outcome()).isEqualTo(IdempotencyRecordView.Outcome.NONE);
    assertThat(view.outcomeSize()).isZero();
    assertThat(view.fingerprinted()).isTrue();
    assertThat(view.expiresIn()).isEqualTo(Duration.ofSeconds(30));
    assertThat(idem.inspect("", "payments.charge", "free")).isEmpty();
    assertThat(idem.inspect("", "payments.other", "held")).as("another scope").isEmpty();
    assertThat(idem.inspect("archive", "payments.charge", "held")).as("another store").isEmpty();
    store.advance(Duration.ofSeconds(31));
    assertThat(idem.inspect("", "payments.charge", "held")).as("after the lease ended").isEmpty();
  }

  @Test
  void aLongKeyIsFoundAsTheExecutorFitsIt() throws Exception {
    store.maxKeyLength = 64;
    String longKey = "order-" + "x".repeat(200);
    charge(longKey);
    assertThat(store.onlyKey().key()).as("the executor digested the key").startsWith("sha256:");

    assertThat(idem.inspect("", "payments.charge", longKey)).isPresent();
    assertThat(idem.delete("", "payments.charge", longKey)).isTrue();
    assertThat(store.size()).isZero();
  }

  @Test
  void deleteOfACompletedRecordMakesTheNextCallRunAgain() throws Exception {
    assertThat(charge(KEY).id()).isEqualTo("r-1");
    assertThat(charge(KEY).id()).as("replayed").isEqualTo("r-1");

    assertThat(idem.delete("", "payments.charge", KEY)).isTrue();

    assertThat(idem.inspect("", "payments.charge", KEY)).isEmpty();
    assertThat(charge(KEY).id()).as("the method runs again").isEqualTo("r-2");
    IdempotencyEvent event =
        events.stream()
            .filter(e -> e.type() == IdempotencyEvent.Type.DELETED)
            .findFirst()
            .orElseThrow();
    assertThat(event.scope()).isEqualTo("payments.charge");
    assertThat(event.redactedKey()).isEqualTo(RecordKey.of("payments.charge", KEY).redactedKey());
    assertThat(event.duration()).isZero();
    assertThat(event.error()).isNull();
    assertThat(logged()).contains("deleted payments.charge/").doesNotContain(SECRET);
  }

  @Test
  void deleteOfAFreeKeyReturnsFalseAndEmitsNothing() {
    assertThat(idem.delete("", "payments.charge", "never-called")).isFalse();

    assertThat(events).isEmpty();
    assertThat(store.deletes.get()).isOne();
    assertThat(logged()).contains("no live record, nothing deleted");
  }

  @Test
  void deleteOfAStuckCallLetsTheNextCallRunAndFencesTheStuckOne() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<Receipt> stuck =
        pool.submit(
            () ->
                idem.execute(
                    POLICY,
                    "k",
                    () -> {
                      inside.countDown();
                      finish.await(10, TimeUnit.SECONDS);
                      return new Receipt("stuck");
                    }));
    assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(idem.inspect("", "payments.charge", "k").orElseThrow().status())
        .isEqualTo(RecordStatus.IN_PROGRESS);

    assertThat(idem.delete("", "payments.charge", "k")).isTrue();

    assertThat(charge("k").id()).as("a second execution starts at once").isEqualTo("r-1");
    finish.countDown();
    assertThat(stuck.get(5, TimeUnit.SECONDS).id())
        .as("the stuck call still returns its own result")
        .isEqualTo("stuck");
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .contains(IdempotencyEvent.Type.DELETED, IdempotencyEvent.Type.FENCED);
    assertThat(charge("k").id())
        .as("the second execution's outcome is the one recorded")
        .isEqualTo("r-1");
  }

  @Test
  void namedStoresAreAddressedByName() throws Exception {
    RecordKey key = RecordKey.of("payments.charge", "k");
    archive.claim(key, "o", null, Duration.ofSeconds(30));
    archive.complete(key, "o", new byte[] {'N'}, Duration.ofMinutes(1));

    assertThat(idem.inspect("archive", "payments.charge", "k").orElseThrow().store())
        .isEqualTo("archive");
    assertThat(idem.delete("", "payments.charge", "k"))
        .as("the default store has no such record")
        .isFalse();
    assertThat(idem.delete("archive", "payments.charge", "k")).isTrue();
    assertThat(archive.size()).isZero();
    assertThatThrownBy(() -> idem.inspect("nope", "payments.charge", "k"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("unknown store 'nope'");
    assertThatThrownBy(() -> idem.delete("nope", "payments.charge", "k"))
        .isInstanceOf(IdempotencyConfigurationException.class);
  }

  @Test
  void blankScopesAndKeysAreRefused() {
    assertThatThrownBy(() -> idem.inspect("", "", "k"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("scope");
    assertThatThrownBy(() -> idem.delete("", "payments.charge", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
  }

  @Test
  void storeFailuresBecomeStoreExceptionsThatNameNoKey() {
    store.failDelete = new IllegalStateException("connection reset while deleting " + KEY);

    Throwable error =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> idem.delete("", "payments.charge", KEY));

    assertThat(error)
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("deleting the record in the default store (TestStore) failed")
        .hasMessageContaining(IllegalStateException.class.getName())
        .hasMessageNotContaining(SECRET);
    assertThat(error.getCause()).isSameAs(store.failDelete);
    assertThat(((IdempotencyStoreException) error).scope()).isEqualTo("payments.charge");
  }

  @Test
  void aListenerThatThrowsDoesNotFailTheDelete() throws Exception {
    Idempotency throwing =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .listener(
                    e -> {
                      throw new IllegalStateException("listener bug");
                    })
                .build());
    charge(KEY);

    assertThat(throwing.delete("", "payments.charge", KEY)).isTrue();
    assertThat(store.size()).isZero();
  }
}
