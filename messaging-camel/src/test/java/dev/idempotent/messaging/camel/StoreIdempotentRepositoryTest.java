package dev.idempotent.messaging.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyAmbiguousOutcomeException;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageInProgressException;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import dev.idempotent.tck.TestBackends;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelExecutionException;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.IdempotentConsumerDefinition;
import org.apache.camel.model.RouteDefinition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The repository under Camel's {@code idempotentConsumer} on real routes, over the memory store,
 * Redis ({@code IDEMPOTENT_REDIS_URL}, else 127.0.0.1:6379) and PostgreSQL ({@code
 * IDEMPOTENT_POSTGRES_URL}, else 127.0.0.1:5432).
 */
class StoreIdempotentRepositoryTest {
  private final String scope = "orders.route." + UUID.randomUUID();
  private final List<String> runs = new CopyOnWriteArrayList<>();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final List<Exchange> deadLetters = new CopyOnWriteArrayList<>();
  private volatile CountDownLatch hold = new CountDownLatch(0);
  private volatile CountDownLatch entered = new CountDownLatch(1);
  private IdempotencyStore store;
  private RedissonClient redisson;
  private HikariDataSource pool;
  private Idempotency idempotency;
  private CamelContext camel;
  private ProducerTemplate producer;
  private StoreIdempotentRepository repository;

  @AfterEach
  void tearDown() throws Exception {
    hold.countDown();
    if (camel != null) {
      camel.close();
    }
    if (store != null) {
      store.close();
    }
    if (redisson != null) {
      redisson.shutdown();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis", "postgres"})
  void aCompletedKeyIsSkippedAsADuplicate(String backend) throws Exception {
    start(backend, settings -> {}, Duration.ofMillis(300), route -> {});
    producer.sendBodyAndHeader("direct:orders", "first", "orderId", "o-1");
    producer.sendBodyAndHeader("direct:orders", "again", "orderId", "o-1");
    producer.sendBodyAndHeader("direct:orders", "other", "orderId", "o-2");
    assertThat(runs).containsExactly("first", "other");
    assertThat(record("o-1")).map(IdempotencyRecord::status).contains(RecordStatus.COMPLETED);
    assertThat(repository.contains("o-1")).isTrue();
    assertThat(repository.contains("o-9")).isFalse();
    assertThat(repository.inFlight()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis", "postgres"})
  void aRouteThatRunsForThreeLeasesIsNotRunAgainByADuplicateDeliveredMeanwhile(String backend)
      throws Exception {
    Duration lease = Duration.ofSeconds(1);
    start(backend, settings -> settings.lease(lease), Duration.ofMillis(300), route -> {});
    hold = new CountDownLatch(1);
    entered = new CountDownLatch(1);
    CompletableFuture<Void> first =
        CompletableFuture.runAsync(
            () -> producer.sendBodyAndHeader("direct:orders", "slow", "orderId", "o-7"));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(lease.multipliedBy(3).plusMillis(500).toMillis()); // the route runs on
    assertThatThrownBy(() -> producer.sendBodyAndHeader("direct:orders", "dup", "orderId", "o-7"))
        .isInstanceOf(CamelExecutionException.class)
        .hasCauseInstanceOf(MessageInProgressException.class);
    assertThat(record("o-7")).map(IdempotencyRecord::status).contains(RecordStatus.IN_PROGRESS);
    hold.countDown();
    first.get(10, TimeUnit.SECONDS);
    producer.sendBodyAndHeader("direct:orders", "redelivered", "orderId", "o-7");
    assertThat(runs).containsExactly("slow");
    assertThat(types()).doesNotContain(IdempotencyEvent.Type.TAKEN_OVER);
    assertThat(record("o-7")).map(IdempotencyRecord::status).contains(RecordStatus.COMPLETED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void aListenerSeesTheExchangesAsExecutedAndReplayed(String backend) throws Exception {
    start(backend, settings -> {}, Duration.ofMillis(300), route -> {});
    producer.sendBodyAndHeader("direct:orders", "first", "orderId", "o-8");
    producer.sendBodyAndHeader("direct:orders", "again", "orderId", "o-8");
    assertThat(types())
        .containsExactly(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.REPLAYED);
    assertThat(events).allMatch(e -> e.scope().equals(scope));
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void aFailedExchangeReleasesItsClaimSoTheRedeliveryRuns(String backend) throws Exception {
    start(backend, settings -> {}, Duration.ofMillis(300), route -> {});
    assertThatThrownBy(() -> producer.sendBodyAndHeader("direct:orders", "fail", "orderId", "o-3"))
        .isInstanceOf(CamelExecutionException.class)
        .hasRootCauseMessage("cannot book o-3");
    assertThat(record("o-3")).isEmpty();
    producer.sendBodyAndHeader("direct:orders", "retry", "orderId", "o-3");
    assertThat(runs).containsExactly("fail", "retry");
    assertThat(record("o-3")).map(IdempotencyRecord::status).contains(RecordStatus.COMPLETED);
  }

  @Test
  void aFailureTheDeadLetterChannelHandledReleasesTheClaimToo() throws Exception {
    start("memory", settings -> {}, Duration.ofMillis(300), route -> {}, true);
    producer.sendBodyAndHeader("direct:orders", "fail", "orderId", "o-10");
    assertThat(deadLetters).hasSize(1);
    assertThat(record("o-10")).isEmpty();
    producer.sendBodyAndHeader("direct:orders", "retry", "orderId", "o-10");
    assertThat(runs).containsExactly("fail", "retry");
  }

  @Test
  void aRecordedFailureFailsTheRedeliveryWithItWithoutRunningTheRoute() throws Exception {
    start(
        "memory",
        settings -> settings.recordFailures(IllegalStateException.class),
        Duration.ofMillis(300),
        route -> {},
        true);
    producer.sendBodyAndHeader("direct:orders", "fail", "orderId", "o-11");
    producer.sendBodyAndHeader("direct:orders", "again", "orderId", "o-11");
    assertThat(runs).containsExactly("fail");
    assertThat(deadLetters).hasSize(2);
    assertThat(caught(deadLetters.get(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("cannot book o-11");
  }

  @Test
  void anAmbiguousFailureKeptByRecordFailsEveryRedeliveryToTheDeadLetterChannel() throws Exception {
    start(
        "memory",
        settings -> settings.onAmbiguousFailure(OnAmbiguousFailure.RECORD),
        Duration.ofSeconds(30),
        route -> {},
        true);
    producer.sendBodyAndHeader("direct:orders", "fail", "orderId", "o-20");
    producer.sendBodyAndHeader("direct:orders", "again", "orderId", "o-20");
    assertThat(runs).containsExactly("fail");
    assertThat(deadLetters).hasSize(2);
    assertThat(caught(deadLetters.get(1))).isInstanceOf(IdempotencyAmbiguousOutcomeException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void aBlockedKeyGoesToTheDeadLetterChannelOnceWithoutAWaitOrALoop(String backend)
      throws Exception {
    // a long wait: a blocked key treated as in progress would wait it out, then fail as such
    start(
        backend,
        settings -> settings.onAmbiguousFailure(OnAmbiguousFailure.BLOCK),
        Duration.ofSeconds(30),
        route -> {},
        true);
    producer.sendBodyAndHeader("direct:orders", "fail", "orderId", "o-12");
    assertThat(record("o-12")).map(IdempotencyRecord::status).contains(RecordStatus.COMPLETED);
    int claimsBefore = claimEvents();
    producer.sendBodyAndHeader("direct:orders", "again", "orderId", "o-12");
    assertThat(runs).containsExactly("fail");
    assertThat(deadLetters).hasSize(2);
    assertThat(caught(deadLetters.get(1))).isInstanceOf(IdempotencyBlockedException.class);
    assertThat(claimEvents() - claimsBefore).isEqualTo(1); // one answer, no retry of the claim
  }

  @Test
  void aStoreOutageFailsTheExchangeWithoutRunningTheRouteWhenFailClosed() throws Exception {
    store = new FailingStore();
    startOn(IdempotencyConfig.builder().storeFailurePolicy(StoreFailurePolicy.FAIL_CLOSED));
    assertThatThrownBy(() -> producer.sendBodyAndHeader("direct:orders", "b", "orderId", "o-13"))
        .isInstanceOf(CamelExecutionException.class)
        .hasCauseInstanceOf(IdempotencyStoreException.class);
    assertThat(runs).isEmpty();
    assertThat(types()).contains(IdempotencyEvent.Type.STORE_ERROR);
  }

  @Test
  void aStoreOutageRunsTheRouteUnprotectedWhenFailOpen() throws Exception {
    store = new FailingStore();
    startOn(IdempotencyConfig.builder().storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN));
    producer.sendBodyAndHeader("direct:orders", "b", "orderId", "o-14");
    producer.sendBodyAndHeader("direct:orders", "c", "orderId", "o-14");
    assertThat(runs).containsExactly("b", "c");
    assertThat(types()).contains(IdempotencyEvent.Type.FAIL_OPEN);
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void aKeyInProgressFailsTheExchangeInsteadOfDroppingIt(String backend) throws Exception {
    start(backend, settings -> {}, Duration.ofMillis(300), route -> {});
    hold = new CountDownLatch(1);
    entered = new CountDownLatch(1);
    CompletableFuture<Void> first =
        CompletableFuture.runAsync(
            () -> producer.sendBodyAndHeader("direct:orders", "slow", "orderId", "o-4"));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(() -> producer.sendBodyAndHeader("direct:orders", "dup", "orderId", "o-4"))
        .isInstanceOf(CamelExecutionException.class)
        .hasCauseInstanceOf(MessageInProgressException.class);
    assertThat(types()).contains(IdempotencyEvent.Type.IN_PROGRESS);
    hold.countDown();
    first.get(10, TimeUnit.SECONDS);
    producer.sendBodyAndHeader("direct:orders", "redelivered", "orderId", "o-4");
    assertThat(runs).containsExactly("slow");
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void aDuplicateThatArrivesWhileTheFirstRunsWaitsAndIsSkippedWhenItCompletes(String backend)
      throws Exception {
    start(backend, settings -> {}, Duration.ofSeconds(5), route -> {});
    hold = new CountDownLatch(1);
    entered = new CountDownLatch(1);
    CompletableFuture<Void> first =
        CompletableFuture.runAsync(
            () -> producer.sendBodyAndHeader("direct:orders", "slow", "orderId", "o-5"));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> duplicate =
        CompletableFuture.runAsync(
            () -> producer.sendBodyAndHeader("direct:orders", "dup", "orderId", "o-5"));
    Thread.sleep(200);
    assertThat(duplicate).isNotDone();
    hold.countDown();
    first.get(10, TimeUnit.SECONDS);
    duplicate.get(10, TimeUnit.SECONDS);
    assertThat(runs).containsExactly("slow");
  }

  @Test
  void theRepositoryNeverClearsTheSharedStore() throws Exception {
    start("memory", settings -> {}, Duration.ofMillis(300), route -> {});
    assertThatThrownBy(repository::clear)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Idempotency.delete");
    assertThatThrownBy(() -> repository.add(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key expression");
  }

  @Test
  void aClaimDeletedByAnOperatorIsNotCompletedByItsFirstHolder() throws Exception {
    start("memory", settings -> {}, Duration.ofMillis(300), route -> {});
    StoreIdempotentRepository other = StoreIdempotentRepository.builder(messages(s -> {})).build();
    assertThat(repository.add("o-6")).isTrue();
    assertThat(idempotency.delete("", scope, "o-6")).isTrue();
    assertThat(other.add("o-6")).isTrue();
    repository.confirm("o-6");
    assertThat(record("o-6")).map(IdempotencyRecord::status).contains(RecordStatus.IN_PROGRESS);
    assertThat(types()).contains(IdempotencyEvent.Type.FENCED);
    assertThat(other.confirm("o-6")).isTrue();
    assertThat(repository.add("o-6")).isFalse();
  }

  @Test
  void aClaimNobodySettlesIsReleasedWhenItsExchangeEnds() throws Exception {
    start("memory", settings -> {}, Duration.ofMillis(300), route -> {});
    List<RecordStatus> whileItRuns = new CopyOnWriteArrayList<>();
    camel.addRoutes(
        new RouteBuilder() {
          @Override
          public void configure() {
            // a component that claims for its exchange and never confirms nor removes
            from("direct:claimOnly")
                .process(e -> repository.add(e, "o-19"))
                .process(e -> whileItRuns.add(record("o-19").orElseThrow().status()));
          }
        });
    producer.sendBody("direct:claimOnly", "x");
    assertThat(whileItRuns).containsExactly(RecordStatus.IN_PROGRESS);
    assertThat(record("o-19")).isEmpty();
  }

  @Test
  void aClaimThatArrivesAfterItsCallerWasInterruptedIsGivenBack() throws Exception {
    start("memory", settings -> {}, Duration.ofSeconds(30), route -> {});
    assertThat(repository.add("o-21")).isTrue();
    StoreIdempotentRepository other = StoreIdempotentRepository.builder(messages(s -> {})).build();
    CompletableFuture<Throwable> waiting = new CompletableFuture<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                other.add("o-21");
                waiting.complete(null);
              } catch (RuntimeException e) {
                waiting.complete(e);
              }
            });
    caller.start();
    Thread.sleep(200); // the caller waits for the key in progress
    caller.interrupt();
    assertThat(waiting.get(10, TimeUnit.SECONDS))
        .isInstanceOf(org.apache.camel.RuntimeCamelException.class)
        .hasCauseInstanceOf(InterruptedException.class);
    assertThat(repository.remove("o-21")).isTrue(); // the interrupted caller's claim now arrives
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (record("o-21").isPresent() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(record("o-21")).isEmpty(); // given back, not renewed until max-hold
    assertThat(other.inFlight()).isZero();
  }

  @Test
  void theRepositoryReachesTheStoreOnlyThroughTheCoreClaims() throws Exception {
    // no class of the repository names the store SPI: claim, complete, release and renew are core's
    for (Class<?> type : StoreIdempotentRepository.class.getDeclaredClasses()) {
      assertThat(constantPool(type)).doesNotContain("dev/idempotent/spi/IdempotencyStore");
    }
    String repositoryClass = constantPool(StoreIdempotentRepository.class);
    assertThat(repositoryClass)
        .doesNotContain("dev/idempotent/spi/IdempotencyStore")
        .doesNotContain("dev/idempotent/spi/AsyncIdempotencyStore")
        .contains("dev/idempotent/IdempotencyClaim");
  }

  private static String constantPool(Class<?> type) throws java.io.IOException {
    String resource = type.getName().replace('.', '/') + ".class";
    try (java.io.InputStream in = type.getClassLoader().getResourceAsStream(resource)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
    }
  }

  // ---- the idempotentConsumer's options ----

  @Test
  void nonEagerModeIsRefusedWhenTheRouteStarts() {
    assertThatThrownBy(
            () -> start("memory", s -> {}, Duration.ofMillis(300), route -> route.eager(false)))
        .hasStackTraceContaining("eager(false)")
        .hasStackTraceContaining("IdempotencyConfigurationException");
    assertThat(runs).isEmpty();
  }

  @Test
  void keepingAFailedKeyIsRefusedWhenTheRouteStarts() {
    assertThatThrownBy(
            () ->
                start(
                    "memory",
                    s -> {},
                    Duration.ofMillis(300),
                    route -> route.removeOnFailure(false)))
        .hasStackTraceContaining("removeOnFailure(false)")
        .hasStackTraceContaining("recordFailures");
  }

  @Test
  void completionEagerRecordsTheKeyWhenTheConsumersBlockEnds() throws Exception {
    List<RecordStatus> afterTheBlock = new CopyOnWriteArrayList<>();
    start(
        "memory",
        s -> {},
        Duration.ofMillis(300),
        route -> route.completionEager(true),
        false,
        after -> afterTheBlock.add(record("o-15").map(IdempotencyRecord::status).orElse(null)));
    producer.sendBodyAndHeader("direct:orders", "first", "orderId", "o-15");
    producer.sendBodyAndHeader("direct:orders", "again", "orderId", "o-15");
    assertThat(runs).containsExactly("first");
    // the first exchange sees its key completed after the block; the duplicate skips the block only
    assertThat(afterTheBlock).containsExactly(RecordStatus.COMPLETED, RecordStatus.COMPLETED);
  }

  @Test
  void completionEagerReleasesAKeyWhoseBlockFailed() throws Exception {
    start("memory", s -> {}, Duration.ofMillis(300), route -> route.completionEager(true));
    assertThatThrownBy(() -> producer.sendBodyAndHeader("direct:orders", "fail", "orderId", "o-16"))
        .isInstanceOf(CamelExecutionException.class);
    assertThat(record("o-16")).isEmpty();
    producer.sendBodyAndHeader("direct:orders", "retry", "orderId", "o-16");
    assertThat(runs).containsExactly("fail", "retry");
  }

  @Test
  void withoutCompletionEagerTheKeyIsRecordedWhenTheWholeExchangeEnds() throws Exception {
    List<RecordStatus> afterTheBlock = new CopyOnWriteArrayList<>();
    start(
        "memory",
        s -> {},
        Duration.ofMillis(300),
        route -> route.completionEager(false),
        false,
        after -> afterTheBlock.add(record("o-17").map(IdempotencyRecord::status).orElse(null)));
    producer.sendBodyAndHeader("direct:orders", "first", "orderId", "o-17");
    assertThat(afterTheBlock).containsExactly(RecordStatus.IN_PROGRESS);
    assertThat(record("o-17")).map(IdempotencyRecord::status).contains(RecordStatus.COMPLETED);
  }

  @Test
  void withoutSkipDuplicateADuplicateRunsMarkedAndLeavesTheRecordAlone() throws Exception {
    start("memory", s -> {}, Duration.ofMillis(300), route -> route.skipDuplicate(false));
    producer.sendBodyAndHeader("direct:orders", "first", "orderId", "o-18");
    producer.sendBodyAndHeader("direct:orders", "again", "orderId", "o-18");
    assertThatThrownBy(() -> producer.sendBodyAndHeader("direct:orders", "fail", "orderId", "o-18"))
        .isInstanceOf(CamelExecutionException.class);
    assertThat(runs).containsExactly("first", "again (duplicate)", "fail (duplicate)");
    assertThat(record("o-18")).map(IdempotencyRecord::status).contains(RecordStatus.COMPLETED);
    assertThat(types())
        .containsExactly(
            IdempotencyEvent.Type.EXECUTED,
            IdempotencyEvent.Type.REPLAYED,
            IdempotencyEvent.Type.REPLAYED);
  }

  // ---- set-up ----

  private void start(
      String backend,
      Consumer<IdempotencySettings.Builder> settings,
      Duration inProgressWait,
      Consumer<IdempotentConsumerDefinition> options)
      throws Exception {
    start(backend, settings, inProgressWait, options, false);
  }

  private void start(
      String backend,
      Consumer<IdempotencySettings.Builder> settings,
      Duration inProgressWait,
      Consumer<IdempotentConsumerDefinition> options,
      boolean deadLetterChannel)
      throws Exception {
    start(backend, settings, inProgressWait, options, deadLetterChannel, after -> {});
  }

  private void start(
      String backend,
      Consumer<IdempotencySettings.Builder> settings,
      Duration inProgressWait,
      Consumer<IdempotentConsumerDefinition> options,
      boolean deadLetterChannel,
      Consumer<Exchange> afterTheBlock)
      throws Exception {
    store = store(backend);
    idempotency =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
    // spotless:off
    // docs/messaging.md: camel route (begin)
    MessageIdempotency orders = MessageIdempotency.builder(scope)  // scope: name the route
        .idempotency(idempotency)
        .settings(settings(settings))                             // store, lease, ttl, failure policies
        .inProgressWait(inProgressWait)
        .build();
    repository = StoreIdempotentRepository.builder(orders).build();
    // docs/messaging.md: camel route (end)
    // spotless:on
    camel = new DefaultCamelContext();
    camel.addRoutes(
        new RouteBuilder() {
          @Override
          public void configure() {
            if (deadLetterChannel) {
              errorHandler(deadLetterChannel("direct:dead"));
              from("direct:dead").process(deadLetters::add);
            }
            RouteDefinition route = from("direct:orders").routeId("orders");
            IdempotentConsumerDefinition consumer =
                route.idempotentConsumer(header("orderId"), repository);
            options.accept(consumer);
            consumer
                .process(StoreIdempotentRepositoryTest.this::book)
                .end()
                .process(afterTheBlock::accept);
          }
        });
    camel.start();
    producer = camel.createProducerTemplate();
  }

  private void startOn(IdempotencyConfig.Builder config) throws Exception {
    idempotency = Idempotency.create(config.defaultStore(store).listener(events::add).build());
    repository =
        StoreIdempotentRepository.builder(
                MessageIdempotency.builder(scope)
                    .idempotency(idempotency)
                    .inProgressWait(Duration.ofMillis(300))
                    .build())
            .build();
    camel = new DefaultCamelContext();
    camel.addRoutes(
        new RouteBuilder() {
          @Override
          public void configure() {
            from("direct:orders")
                .idempotentConsumer(header("orderId"), repository)
                .process(StoreIdempotentRepositoryTest.this::book);
          }
        });
    camel.start();
    producer = camel.createProducerTemplate();
  }

  private MessageIdempotency messages(Consumer<IdempotencySettings.Builder> settings) {
    return MessageIdempotency.builder(scope)
        .idempotency(idempotency)
        .settings(settings(settings))
        .inProgressWait(Duration.ofMillis(300))
        .build();
  }

  private static IdempotencySettings settings(Consumer<IdempotencySettings.Builder> settings) {
    IdempotencySettings.Builder builder = IdempotencySettings.builder();
    settings.accept(builder);
    return builder.build();
  }

  private void book(Exchange exchange) throws InterruptedException {
    String body = exchange.getMessage().getBody(String.class);
    boolean duplicate = exchange.getProperty(Exchange.DUPLICATE_MESSAGE, false, Boolean.class);
    runs.add(duplicate ? body + " (duplicate)" : body);
    entered.countDown();
    hold.await(30, TimeUnit.SECONDS);
    if (body.equals("fail")) {
      throw new IllegalStateException("cannot book " + exchange.getMessage().getHeader("orderId"));
    }
  }

  private static Throwable caught(Exchange deadLetter) {
    return deadLetter.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
  }

  private List<IdempotencyEvent.Type> types() {
    return events.stream().map(IdempotencyEvent::type).toList();
  }

  /** The events a claim's answer gives (each claim that does not run the route emits one). */
  private int claimEvents() {
    return (int)
        events.stream()
            .filter(
                e ->
                    e.type() == IdempotencyEvent.Type.IN_PROGRESS
                        || e.type() == IdempotencyEvent.Type.BLOCKED
                        || e.type() == IdempotencyEvent.Type.REPLAYED)
            .count();
  }

  private IdempotencyStore store(String backend) {
    return switch (backend) {
      case "memory" -> CaffeineIdempotencyStore.builder().build();
      case "redis" -> {
        Config config = new Config();
        config
            .useSingleServer()
            .setAddress(require("IDEMPOTENT_REDIS_URL", "redis://127.0.0.1:6379", 6379));
        redisson = Redisson.create(config);
        yield RedissonIdempotencyStore.builder(redisson).build();
      }
      case "postgres" -> {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(
            require(
                "IDEMPOTENT_POSTGRES_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
                5432));
        config.setMaximumPoolSize(8);
        config.setConnectionTimeout(5_000);
        pool = new HikariDataSource(config);
        yield JdbcIdempotencyStore.builder(pool)
            .table("idempotency_camel_test")
            .createTable(true)
            .closing(pool)
            .build();
      }
      default -> throw new IllegalArgumentException(backend);
    };
  }

  private static String require(String variable, String localUrl, int localPort) {
    Optional<String> url = TestBackends.configuredOrLocal(variable, localUrl, localPort);
    if (url.isEmpty()) {
      TestBackends.missing(variable, localUrl, localPort);
    }
    return url.orElseThrow();
  }

  private Optional<IdempotencyRecord> record(String key) {
    return store.read(RecordKey.of(scope, key).fittedTo(store.maxKeyLength()));
  }

  /** A store whose every operation fails, as one that cannot be reached. */
  private static final class FailingStore implements IdempotencyStore {
    private static IllegalStateException down() {
      return new IllegalStateException("the store cannot be reached");
    }

    @Override
    public dev.idempotent.spi.ClaimResult claim(
        RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      throw down();
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      throw down();
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      throw down();
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      throw down();
    }

    @Override
    public boolean delete(RecordKey key) {
      throw down();
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      throw down();
    }
  }
}
