package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.internal.codec.Payloads;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the executor does with recorded outcomes that cannot be trusted (item: stored bytes are
 * untrusted input) and with outcomes that could not be read back (they are not recorded).
 */
class StoredOutcomeTest {
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  /** A store whose every key is already completed with the planted outcome bytes. */
  static final class PlantedStore implements IdempotencyStore {
    final byte[] outcome;
    final AtomicInteger completes = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();

    PlantedStore(byte[] outcome) {
      this.outcome = outcome;
    }

    @Override
    public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      // no owner token, as the Redis store returns a completed record
      return ClaimResult.existing(
          IdempotencyRecord.completed(key, null, null, outcome, Duration.ofHours(1)));
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      completes.incrementAndGet();
      return false;
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      releases.incrementAndGet();
      return false;
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      return false;
    }

    @Override
    public boolean delete(RecordKey key) {
      throw new UnsupportedOperationException("not used by this test");
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      return Optional.empty();
    }
  }

  private static byte[] valueOutcome(byte[] serialized) {
    byte[] header = {'C', 4, 'j', 'a', 'v', 'a'};
    byte[] outcome = new byte[serialized.length + header.length];
    System.arraycopy(header, 0, outcome, 0, header.length);
    System.arraycopy(serialized, 0, outcome, header.length, serialized.length);
    return outcome;
  }

  private static byte[] failureOutcome(String className, String message) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.write('F');
      out.writeUTF(className);
      out.writeBoolean(true);
      out.writeUTF(message);
    }
    return bytes.toByteArray();
  }

  /**
   * Replays {@code outcome} for a policy; the method must not run, and the record must stay as it
   * is.
   */
  private void assertRefused(byte[] outcome, IdempotencyPolicy policy, String... refusal) {
    PlantedStore store = new PlantedStore(outcome);
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
    String key = "card=4111111111111111";
    assertThatThrownBy(
            () ->
                idem.execute(
                    policy,
                    key,
                    () -> {
                      runs.incrementAndGet();
                      return null;
                    }))
        .isInstanceOfSatisfying(
            IdempotencyOutcomeException.class,
            e -> {
              assertThat(e.httpStatus()).isEqualTo(500);
              assertThat(e.scope()).isEqualTo(policy.scope());
              assertThat(e.redactedKey()).isEqualTo(RecordKey.redact(key));
              assertThat(e.getMessage())
                  .contains(policy.scope(), RecordKey.redact(key))
                  .contains(refusal)
                  .doesNotContain("4111111111111111");
            });
    assertThat(runs).as("the method did not run again").hasValue(0);
    assertThat(store.completes).as("the record was not overwritten").hasValue(0);
    assertThat(store.releases).as("the record was not released").hasValue(0);
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .containsExactly(IdempotencyEvent.Type.STORE_ERROR);
  }

  @Test
  void theUrlDnsPayloadFailsTheCallWithoutRunningTheMethod() throws IOException {
    assertRefused(
        valueOutcome(Payloads.urlDns()),
        IdempotencyPolicy.builder("replay.urldns").resultType(Map.class).build(),
        "java.net.URL");
  }

  @Test
  void aShortRecordAskingForAHugeArrayFailsTheCall() {
    byte[] outcome = valueOutcome(Payloads.HUGE_ARRAY);
    assertThat(outcome).hasSize(33);
    assertRefused(outcome, IdempotencyPolicy.builder("replay.array").build(), "67108864 elements");
  }

  @Test
  void nestedHashSetsFailTheCallQuickly() throws IOException {
    byte[] bomb = Payloads.serialize(Payloads.nestedSets(40, 2));
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
        Duration.ofSeconds(3),
        () ->
            assertRefused(
                valueOutcome(bomb), IdempotencyPolicy.builder("replay.sets").build(), "hash"));
  }

  @Test
  void aValueOfAnotherTypeThanTheMethodReturnsFailsTheCall() throws IOException {
    HashMap<String, String> map = new HashMap<>(Map.of("a", "b"));
    assertRefused(
        valueOutcome(Payloads.serialize(map)),
        IdempotencyPolicy.builder("replay.type").resultType(String.class).build(),
        "java.util.HashMap",
        "java.lang.String");
  }

  @Test
  void aPrimitiveResultTypeAcceptsItsWrapperOnly() throws Exception {
    assertRefused(
        valueOutcome(Payloads.serialize(7L)),
        IdempotencyPolicy.builder("replay.int").resultType(int.class).build(),
        "java.lang.Long",
        "int");
    TestStore store = new TestStore();
    Idempotency idem = Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
    IdempotencyPolicy ints =
        IdempotencyPolicy.builder("replay.int.ok").resultType(int.class).build();
    assertThat(idem.<Integer>execute(ints, "k", () -> 7)).isEqualTo(7);
    assertThat(idem.<Integer>execute(ints, "k", () -> 8)).isEqualTo(7);
  }

  static class PaymentDeclinedException extends RuntimeException {
    public PaymentDeclinedException(String message) {
      super(message);
    }
  }

  @Test
  void aRecordedFailureNotInRecordFailuresIsNotRebuilt() throws IOException {
    byte[] outcome = failureOutcome(IllegalStateException.class.getName(), "planted");
    assertRefused(
        outcome,
        IdempotencyPolicy.builder("replay.failure")
            .recordFailures(PaymentDeclinedException.class)
            .build(),
        IllegalStateException.class.getName(),
        "recordFailures");
    events.clear();
    assertRefused(
        outcome,
        IdempotencyPolicy.builder("replay.nofailures").build(),
        IllegalStateException.class.getName(),
        "recordFailures");
  }

  @Test
  void corruptRecordsFailTheCall() throws IOException {
    assertRefused(
        new byte[0],
        IdempotencyPolicy.builder("replay.empty").build(),
        "not written by this library");
    events.clear();
    assertRefused(
        "C\u0004javagarbage".getBytes(StandardCharsets.US_ASCII),
        IdempotencyPolicy.builder("replay.garbage").build(),
        "cannot read the recorded result back");
  }

  @Test
  void aSubclassOfARecordedFailureTypeIsRebuilt() {
    TestStore store = new TestStore();
    Idempotency idem = Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
    IdempotencyPolicy p =
        IdempotencyPolicy.builder("failure.subclass")
            .recordFailures(RuntimeException.class)
            .build();
    assertThatThrownBy(
            () ->
                idem.execute(
                    p,
                    "k",
                    () -> {
                      throw new PaymentDeclinedException("no");
                    }))
        .isInstanceOf(PaymentDeclinedException.class);
    assertThatThrownBy(() -> idem.execute(p, "k", () -> "x"))
        .isExactlyInstanceOf(PaymentDeclinedException.class)
        .hasMessage("no");
  }

  // ---- outcomes that could not be read back are not recorded

  record Receipt(String id, Payloads.Note note) implements Serializable {}

  /** The ERROR lines the library logs about {@code scope} while {@code calls} run. */
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

  private void assertNotRecorded(TestStore store, Class<?> type, String... fix) {
    assertThat(store.size()).as("the key was released").isZero();
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .containsOnly(IdempotencyEvent.Type.STORE_ERROR);
    assertThat(events.get(0).error())
        .hasMessageContaining(type.getName())
        .hasMessageContaining(fix[0]);
    for (String f : fix) {
      assertThat(events.get(0).error()).hasMessageContaining(f);
    }
  }

  @Test
  void aResultHoldingAClassOutsideTheAllowListIsNotRecordedAndRepeatsRunAgain() {
    TestStore store = new TestStore();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
    IdempotencyPolicy p =
        IdempotencyPolicy.builder("unrecordable.receipt").resultType(Receipt.class).build();
    List<String> errors =
        errorsLogged(
            "unrecordable.receipt",
            () -> {
              for (int i = 0; i < 3; i++) {
                Receipt r =
                    call(
                        idem,
                        p,
                        () -> new Receipt("r" + runs.incrementAndGet(), new Payloads.Note("n")));
                assertThat(r.id()).isEqualTo("r" + (i + 1));
              }
            });
    assertThat(runs).hasValue(3);
    assertNotRecorded(store, Payloads.Note.class, "idempotent.codec.allow");
    assertThat(events).hasSize(3);
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0)).contains(Payloads.Note.class.getName());
  }

  record Flexible(Object note) implements Serializable {}

  @Test
  void aLaterResultOfAClassAlreadyShownReadableIsStillCheckedForItsContents() throws Exception {
    TestStore store = new TestStore();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
    IdempotencyPolicy p =
        IdempotencyPolicy.builder("unrecordable.later").resultType(Flexible.class).build();
    idem.execute(p, "plain", () -> new Flexible("text"));
    assertThat(store.size()).isOne();
    Flexible r = idem.execute(p, "foreign", () -> new Flexible(new Payloads.Note("n")));
    assertThat(r.note()).isEqualTo(new Payloads.Note("n"));
    assertThat(store.size()).as("only the first outcome is recorded").isOne();
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .containsExactly(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.STORE_ERROR);
    assertThat(events.get(1).error()).hasMessageContaining(Payloads.Note.class.getName());
  }

  @Test
  void aResultThatCannotBeEncodedIsLoggedOncePerOperationAndType() {
    TestStore store = new TestStore();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
    IdempotencyPolicy untyped = IdempotencyPolicy.builder("unrecordable.object").build();
    List<String> errors =
        errorsLogged(
            "unrecordable.object",
            () -> {
              for (int i = 0; i < 3; i++) {
                Object r =
                    call(
                        idem,
                        untyped,
                        () -> {
                          runs.incrementAndGet();
                          return new Object();
                        });
                assertThat(r).isNotNull();
              }
            });
    assertThat(runs).hasValue(3);
    assertNotRecorded(store, Object.class, "Serializable", "jackson");
    assertThat(errors).hasSize(1);
  }

  /** No creator Jackson 2 can use (Jackson 3 reads the constructor by its parameter names). */
  public static final class NoCreator {
    private final String id;

    public NoCreator(String id, int unused) {
      this.id = id;
    }

    public String getId() {
      return id;
    }
  }

  @Test
  void aJacksonResultWithoutACreatorIsNotRecorded() {
    TestStore store = new TestStore();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .listener(events::add)
                .codec(ResultCodec.jackson2())
                .build());
    IdempotencyPolicy p =
        IdempotencyPolicy.builder("unrecordable.jackson").resultType(NoCreator.class).build();
    for (int i = 0; i < 2; i++) {
      NoCreator r = call(idem, p, () -> new NoCreator("n" + runs.incrementAndGet(), 0));
      assertThat(r.getId()).isEqualTo("n" + (i + 1));
    }
    assertThat(runs).hasValue(2);
    assertNotRecorded(store, NoCreator.class, "would not read it back");
  }

  public record Item(String sku) {}

  @Test
  void aJacksonResultDeclaredAsObjectThatReadsBackAsAMapIsNotRecorded() {
    TestStore store = new TestStore();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .listener(events::add)
                .codec(ResultCodec.jackson())
                .build());
    IdempotencyPolicy untyped = IdempotencyPolicy.builder("unrecordable.untyped").build();
    Item first = call(idem, untyped, () -> new Item("a" + runs.incrementAndGet()));
    Item second = call(idem, untyped, () -> new Item("a" + runs.incrementAndGet()));
    assertThat(first.sku()).isEqualTo("a1");
    assertThat(second.sku()).isEqualTo("a2");
    assertNotRecorded(
        store, Item.class, "reads it back as a java.util.LinkedHashMap", "declare the result type");
  }

  public static final class NoUsableConstructorException extends RuntimeException {
    public NoUsableConstructorException(String message, int code) {
      super(message + " " + code);
    }
  }

  @Test
  void aRecordedFailureWithoutAUsableConstructorIsNotRecorded() {
    TestStore store = new TestStore();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
    IdempotencyPolicy p =
        IdempotencyPolicy.builder("unrecordable.failure")
            .recordFailures(NoUsableConstructorException.class)
            .build();
    NoUsableConstructorException thrown = new NoUsableConstructorException("declined", 51);
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(
              () ->
                  idem.execute(
                      p,
                      "k",
                      () -> {
                        runs.incrementAndGet();
                        throw thrown;
                      }))
          .isSameAs(thrown);
    }
    assertThat(runs).hasValue(2);
    assertNotRecorded(store, NoUsableConstructorException.class, "constructor");
  }

  @Test
  void resultsThatReadBackAreStillRecordedAndReplayed() {
    TestStore store = new TestStore();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .listener(events::add)
                .codec(ResultCodec.javaSerialization("dev.idempotent.internal.codec.*"))
                .build());
    IdempotencyPolicy p =
        IdempotencyPolicy.builder("recordable.receipt").resultType(Receipt.class).build();
    Receipt first =
        call(idem, p, () -> new Receipt("r" + runs.incrementAndGet(), new Payloads.Note("n")));
    Receipt again = call(idem, p, () -> new Receipt("r" + runs.incrementAndGet(), null));
    assertThat(again).isEqualTo(first);
    assertThat(runs).hasValue(1);
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .containsExactly(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.REPLAYED);
  }

  private static <T> T call(
      Idempotency idem, IdempotencyPolicy p, java.util.concurrent.Callable<T> body) {
    try {
      return idem.execute(p, "k", body);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
