package dev.idempotent.messaging.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.memory.CaffeineIdempotencyStore;
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
import org.apache.camel.CamelContext;
import org.apache.camel.CamelExecutionException;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The repository under Camel's {@code idempotentConsumer} on real routes, over the memory store and
 * over Redis ({@code IDEMPOTENT_REDIS_URL}, else 127.0.0.1:6379).
 */
class StoreIdempotentRepositoryTest {
  private final String scope = "orders.route." + UUID.randomUUID();
  private final List<String> runs = new CopyOnWriteArrayList<>();
  private volatile CountDownLatch hold = new CountDownLatch(0);
  private volatile CountDownLatch entered = new CountDownLatch(1);
  private IdempotencyStore store;
  private RedissonClient redisson;
  private CamelContext camel;
  private ProducerTemplate producer;
  private StoreIdempotentRepository repository;

  @AfterEach
  void tearDown() throws Exception {
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
  @ValueSource(strings = {"memory", "redis"})
  void aCompletedKeyIsSkippedAsADuplicate(String backend) throws Exception {
    start(backend, Duration.ofMillis(300));
    producer.sendBodyAndHeader("direct:orders", "first", "orderId", "o-1");
    producer.sendBodyAndHeader("direct:orders", "again", "orderId", "o-1");
    producer.sendBodyAndHeader("direct:orders", "other", "orderId", "o-2");
    assertThat(runs).containsExactly("first", "other");
    assertThat(record("o-1")).map(IdempotencyRecord::status).contains(RecordStatus.COMPLETED);
    assertThat(repository.contains("o-1")).isTrue();
    assertThat(repository.inFlight()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void aFailedExchangeReleasesItsClaimSoTheRedeliveryRuns(String backend) throws Exception {
    start(backend, Duration.ofMillis(300));
    assertThatThrownBy(() -> producer.sendBodyAndHeader("direct:orders", "fail", "orderId", "o-3"))
        .isInstanceOf(CamelExecutionException.class)
        .hasRootCauseMessage("cannot book o-3");
    assertThat(record("o-3")).isEmpty();
    producer.sendBodyAndHeader("direct:orders", "retry", "orderId", "o-3");
    assertThat(runs).containsExactly("fail", "retry");
    assertThat(record("o-3")).map(IdempotencyRecord::status).contains(RecordStatus.COMPLETED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void aKeyInProgressFailsTheExchangeInsteadOfDroppingIt(String backend) throws Exception {
    start(backend, Duration.ofMillis(300));
    hold = new CountDownLatch(1);
    entered = new CountDownLatch(1);
    CompletableFuture<Void> first =
        CompletableFuture.runAsync(
            () -> producer.sendBodyAndHeader("direct:orders", "slow", "orderId", "o-4"));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    long start = System.nanoTime();
    assertThatThrownBy(() -> producer.sendBodyAndHeader("direct:orders", "dup", "orderId", "o-4"))
        .isInstanceOf(CamelExecutionException.class)
        .hasCauseInstanceOf(MessageInProgressException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(250));
    hold.countDown();
    first.get(10, TimeUnit.SECONDS);
    producer.sendBodyAndHeader("direct:orders", "redelivered", "orderId", "o-4");
    assertThat(runs).containsExactly("slow");
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void aDuplicateThatArrivesWhileTheFirstRunsWaitsAndIsSkippedWhenItCompletes(String backend)
      throws Exception {
    start(backend, Duration.ofSeconds(5));
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

  @ParameterizedTest
  @ValueSource(strings = {"memory"})
  void theRepositoryNeverClearsTheSharedStore(String backend) throws Exception {
    start(backend, Duration.ofMillis(300));
    assertThatThrownBy(repository::clear)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Idempotency.delete");
    assertThatThrownBy(() -> repository.add(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key expression");
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory"})
  void aClaimTakenOverAfterItsLeaseIsNotCompletedByItsFirstHolder(String backend) throws Exception {
    store = CaffeineIdempotencyStore.builder().build();
    StoreIdempotentRepository shortLease =
        StoreIdempotentRepository.builder(store, scope).lease(Duration.ofMillis(100)).build();
    StoreIdempotentRepository other = StoreIdempotentRepository.builder(store, scope).build();
    assertThat(shortLease.add("o-6")).isTrue();
    Thread.sleep(250);
    assertThat(other.add("o-6")).isTrue();
    assertThat(shortLease.confirm("o-6")).isFalse();
    assertThat(record("o-6")).map(IdempotencyRecord::status).contains(RecordStatus.IN_PROGRESS);
    assertThat(other.confirm("o-6")).isTrue();
    assertThat(shortLease.add("o-6")).isFalse();
  }

  private void start(String backend, Duration inProgressWait) throws Exception {
    store = store(backend);
    // spotless:off
    // docs/messaging.md: camel route (begin)
    repository = StoreIdempotentRepository.builder(store, scope)   // any IdempotencyStore; scope: name the route
        .inProgressWait(inProgressWait)
        .build();
    // docs/messaging.md: camel route (end)
    // spotless:on
    camel = new DefaultCamelContext();
    camel.addRoutes(
        new RouteBuilder() {
          @Override
          public void configure() {
            from("direct:orders")
                .idempotentConsumer(header("orderId"), repository)
                .process(
                    exchange -> {
                      String body = exchange.getMessage().getBody(String.class);
                      runs.add(body);
                      entered.countDown();
                      hold.await(10, TimeUnit.SECONDS);
                      if (body.equals("fail")) {
                        throw new IllegalStateException(
                            "cannot book " + exchange.getMessage().getHeader("orderId"));
                      }
                    });
          }
        });
    camel.start();
    producer = camel.createProducerTemplate();
  }

  private IdempotencyStore store(String backend) {
    if (backend.equals("memory")) {
      return CaffeineIdempotencyStore.builder().build();
    }
    Optional<String> url =
        TestBackends.configuredOrLocal("IDEMPOTENT_REDIS_URL", "redis://127.0.0.1:6379", 6379);
    if (url.isEmpty()) {
      TestBackends.missing("IDEMPOTENT_REDIS_URL", "redis://127.0.0.1:6379", 6379);
    }
    Config config = new Config();
    config.useSingleServer().setAddress(url.get());
    redisson = Redisson.create(config);
    return RedissonIdempotencyStore.builder(redisson).build();
  }

  private Optional<IdempotencyRecord> record(String key) {
    return store.read(RecordKey.of(scope, key).fittedTo(store.maxKeyLength()));
  }
}
