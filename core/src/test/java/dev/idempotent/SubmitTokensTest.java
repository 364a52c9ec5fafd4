package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One-time submit tokens on a fake-clock store. */
class SubmitTokensTest {
  private final TestStore store = new TestStore();
  private final AtomicInteger runs = new AtomicInteger();
  private final ExecutorService pool = Executors.newFixedThreadPool(8);
  private Idempotency idem;
  private SubmitTokens tokens;

  @BeforeEach
  void setUp() {
    idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).timeSource(store).build());
    tokens = SubmitTokens.create(idem);
  }

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
  }

  private String order() {
    return "order-" + runs.incrementAndGet();
  }

  @Test
  void tokensAreLongUrlSafeAndDistinct() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      String t = tokens.issue("orders.new", "alice");
      assertThat(t).hasSize(32).matches("[A-Za-z0-9_-]+");
      assertThat(seen.add(t)).isTrue();
    }
  }

  @Test
  void anIssuedTokenRunsOnceAndRepeatsGetTheFirstOutcome() throws Exception {
    String t = tokens.issue("orders.new", "alice");
    assertThat(tokens.isIssued("orders.new", "alice", t)).isTrue();
    assertThat(tokens.execute("orders.new", "alice", t, this::order)).isEqualTo("order-1");
    assertThat(tokens.execute("orders.new", "alice", t, this::order)).isEqualTo("order-1");
    assertThat(runs).hasValue(1);
  }

  @Test
  void forgedOtherUsersOtherScenesAndExpiredTokensGetTheSameRefusal() {
    String t = tokens.issue("orders.new", "alice");
    String forged = "A".repeat(32);
    List<Throwable> refusals = new ArrayList<>();
    refusals.add(catchThrowable(() -> tokens.execute("orders.new", "alice", forged, this::order)));
    refusals.add(catchThrowable(() -> tokens.execute("orders.new", "alice", "short", this::order)));
    refusals.add(catchThrowable(() -> tokens.execute("orders.new", "alice", null, this::order)));
    refusals.add(catchThrowable(() -> tokens.execute("orders.new", "bob", t, this::order)));
    refusals.add(catchThrowable(() -> tokens.execute("orders.edit", "alice", t, this::order)));
    store.advance(SubmitTokens.DEFAULT_TTL.plusSeconds(1));
    refusals.add(catchThrowable(() -> tokens.execute("orders.new", "alice", t, this::order)));
    for (Throwable r : refusals) {
      assertThat(r).isInstanceOf(SubmitTokenException.class);
      assertThat(withoutScope(r)).isEqualTo(withoutScope(refusals.get(0)));
      assertThat(((SubmitTokenException) r).httpStatus()).isEqualTo(400);
      assertThat(r.getMessage()).doesNotContain(t);
    }
    assertThat(runs).hasValue(0);
  }

  private static String withoutScope(Throwable t) {
    return t.getMessage().replaceAll(" \\[[^\\]]*\\]$", "");
  }

  @Test
  void aTokenStaysValidForFifteenMinutes() throws Exception {
    String t = tokens.issue("orders.new", "alice");
    store.advance(Duration.ofMinutes(14).plusSeconds(59));
    assertThat(tokens.execute("orders.new", "alice", t, this::order)).isEqualTo("order-1");
  }

  @Test
  void aFailedSubmitDoesNotBurnTheToken() throws Exception {
    String t = tokens.issue("orders.new", "alice");
    assertThatThrownBy(
            () ->
                tokens.execute(
                    "orders.new",
                    "alice",
                    t,
                    () -> {
                      runs.incrementAndGet();
                      throw new IllegalArgumentException("quantity must be positive");
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("quantity must be positive");
    assertThat(tokens.execute("orders.new", "alice", t, this::order)).isEqualTo("order-2");
    assertThat(tokens.execute("orders.new", "alice", t, this::order)).isEqualTo("order-2");
  }

  @Test
  void concurrentSubmitsWithOneTokenRunOnce() throws Exception {
    String t = tokens.issue("orders.new", "alice");
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch inside = new CountDownLatch(1);
    List<Future<String>> results = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      results.add(
          pool.submit(
              () -> {
                start.await();
                return tokens.execute(
                    "orders.new",
                    "alice",
                    t,
                    () -> {
                      inside.countDown();
                      Thread.sleep(100);
                      return order();
                    });
              }));
    }
    start.countDown();
    assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();
    for (Future<String> f : results) {
      assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo("order-1");
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void rejectingDuplicatesSaysAlreadySubmitted() throws Exception {
    SubmitTokens rejecting = SubmitTokens.builder(idem).onDuplicate(OnDuplicate.REJECT).build();
    String t = rejecting.issue("orders.new", "alice");
    rejecting.execute("orders.new", "alice", t, this::order);
    assertThatThrownBy(() -> rejecting.execute("orders.new", "alice", t, this::order))
        .isInstanceOf(DuplicateRequestException.class);
    assertThat(runs).hasValue(1);
  }

  @Test
  void requireGuardsAWovenOrProgrammaticCall() {
    String t = tokens.issue("orders.new", "alice");
    tokens.require("orders.new", "alice", t);
    assertThatThrownBy(() -> tokens.require("orders.new", "mallory", t))
        .isInstanceOf(SubmitTokenException.class);
  }

  @Test
  void aStoreFailureWhileCheckingIsFailClosedByDefault() {
    String t = tokens.issue("orders.new", "alice");
    store.failClaim = new IllegalStateException("store down");
    assertThatThrownBy(() -> tokens.execute("orders.new", "alice", t, this::order))
        .isInstanceOf(IdempotencyStoreException.class);
    assertThat(runs).hasValue(0);
  }

  @Test
  void theBuilderRejectsBadSettings() {
    assertThatThrownBy(() -> SubmitTokens.builder(idem).ttl(Duration.ZERO))
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> SubmitTokens.builder(idem).store("nope").build())
        .isInstanceOf(IdempotencyConfigurationException.class);
    assertThatThrownBy(() -> tokens.issue(" ", "alice")).hasMessageContaining("scene");
  }
}
