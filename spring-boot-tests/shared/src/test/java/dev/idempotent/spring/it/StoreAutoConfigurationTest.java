package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.micrometer.MicrometerIdempotencyListener;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Which store the store auto-configurations make, on a real Redis and PostgreSQL: the application's
 * own store bean wins; else {@code idempotent.store} chooses among the modules on the classpath;
 * else Redis, then JDBC, then memory, each only with its module (and its client library) on the
 * classpath and the connection it needs; and exactly one store bean results.
 */
class StoreAutoConfigurationTest {
  private static final String TABLE = "it_autoconfig_record";
  private static RedissonClient redisson;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(StarterAutoConfigurations.all())
          .withBean(Greeter.class)
          .withPropertyValues(
              "idempotent.redisson.key-prefix=it-autoconfig:",
              "idempotent.jdbc.table=" + TABLE,
              "idempotent.jdbc.create-table=true");

  private static RedissonClient redisson() {
    if (redisson == null) {
      Config config = new Config();
      config.useSingleServer().setAddress(TestServices.redis());
      redisson = Redisson.create(config);
    }
    return redisson;
  }

  private static DataSource postgres() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(TestServices.postgres());
    return dataSource;
  }

  @AfterAll
  static void closeClient() {
    if (redisson != null) {
      redisson.shutdown();
    }
  }

  @Test
  void withNothingButTheMemoryModuleTheMemoryStoreIsSizedFromItsProperty() {
    runner
        .withPropertyValues("idempotent.memory.maximum-size=500")
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyStore.class);
              assertThat(context.getBean(IdempotencyStore.class))
                  .isInstanceOf(CaffeineIdempotencyStore.class)
                  .hasToString("CaffeineIdempotencyStore{maximumSize=500}");
            });
  }

  @Test
  void aRedissonClientBeanKeepsTheRecordsInRedisAndStaysOpenAfterTheContext() {
    RedissonClient client = redisson();
    runner
        .withBean(RedissonClient.class, () -> client)
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyStore.class);
              assertThat(context.getBean(IdempotencyStore.class))
                  .isInstanceOf(RedissonIdempotencyStore.class);
              String name = UUID.randomUUID().toString();
              Greeter greeter = context.getBean(Greeter.class);
              assertThat(greeter.greet(name)).isEqualTo(greeter.greet(name));
              assertThat(greeter.executions()).isEqualTo(1);
              assertThat(client.getKeys().getKeysByPattern("it-autoconfig:*")).isNotEmpty();
            });
    assertThat(client.isShutdown()).as("the application's client after the context").isFalse();
  }

  @Test
  void aDataSourceBeanKeepsTheRecordsInItsDatabase() {
    runner
        .withBean(DataSource.class, StoreAutoConfigurationTest::postgres)
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyStore.class);
              IdempotencyStore store = context.getBean(IdempotencyStore.class);
              assertThat(store).isInstanceOf(JdbcIdempotencyStore.class);
              assertThat(store.toString()).contains(TABLE);
              String name = UUID.randomUUID().toString();
              context.getBean(Greeter.class).greet(name);
              assertThat(store.read(RecordKey.of("greet", name))).isPresent();
            });
  }

  @Test
  void redisComesBeforeJdbcAndJdbcBeforeMemory() {
    RedissonClient client = redisson();
    runner
        .withBean(RedissonClient.class, () -> client)
        .withBean(DataSource.class, StoreAutoConfigurationTest::postgres)
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(RedissonIdempotencyStore.class));
  }

  @Test
  void idempotentStoreChoosesAmongTheModulesPresent() {
    RedissonClient client = redisson();
    ApplicationContextRunner both =
        runner
            .withBean(RedissonClient.class, () -> client)
            .withBean(DataSource.class, StoreAutoConfigurationTest::postgres);
    both.withPropertyValues("idempotent.store=jdbc")
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyStore.class);
              assertThat(context.getBean(IdempotencyStore.class))
                  .isInstanceOf(JdbcIdempotencyStore.class);
            });
    both.withPropertyValues("idempotent.store=MEMORY")
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyStore.class);
              assertThat(context.getBean(IdempotencyStore.class))
                  .isInstanceOf(CaffeineIdempotencyStore.class);
            });
  }

  @Test
  void theApplicationsStoreBeanWinsOverEveryStoreModule() {
    RedissonClient client = redisson();
    IdempotencyStore mine = CaffeineIdempotencyStore.builder().build();
    runner
        .withBean(RedissonClient.class, () -> client)
        .withBean(DataSource.class, StoreAutoConfigurationTest::postgres)
        .withBean("myStore", IdempotencyStore.class, () -> mine)
        .withPropertyValues("idempotent.store=jdbc")
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyStore.class);
              assertThat(context).doesNotHaveBean("idempotencyStore");
              assertThat(Idempotency.global().config().defaultStore()).isSameAs(mine);
            });
  }

  @Test
  void aStoreModuleOrClientLibraryMissingFromTheClasspathIsPassedOver() {
    RedissonClient client = redisson();
    ApplicationContextRunner both =
        runner
            .withBean(RedissonClient.class, () -> client)
            .withBean(DataSource.class, StoreAutoConfigurationTest::postgres);
    both.withClassLoader(new FilteredClassLoader(RedissonIdempotencyStore.class))
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(JdbcIdempotencyStore.class));
    both.withClassLoader(
            new FilteredClassLoader(RedissonIdempotencyStore.class, JdbcIdempotencyStore.class))
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(CaffeineIdempotencyStore.class));
    // spring-jdbc missing: no store on the DataSource, whose transactions it could not join
    runner
        .withBean(DataSource.class, StoreAutoConfigurationTest::postgres)
        .withClassLoader(new FilteredClassLoader("org.springframework.jdbc"))
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(CaffeineIdempotencyStore.class));
  }

  @Test
  void anAddressOfItsOwnGivesTheRedisStoreItsOwnConnection() {
    runner
        .withPropertyValues("idempotent.redisson.address=" + TestServices.redis())
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyStore.class);
              assertThat(context.getBean(IdempotencyStore.class))
                  .isInstanceOf(RedissonIdempotencyStore.class);
              String name = UUID.randomUUID().toString();
              Greeter greeter = context.getBean(Greeter.class);
              assertThat(greeter.greet(name)).isEqualTo(greeter.greet(name));
            });
  }

  @Test
  void aUrlOfItsOwnGivesTheJdbcStoreAPoolOfItsOwn() {
    runner
        .withPropertyValues("idempotent.jdbc.url=" + TestServices.postgres())
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyStore.class);
              IdempotencyStore store = context.getBean(IdempotencyStore.class);
              assertThat(store).isInstanceOf(JdbcIdempotencyStore.class);
              String name = UUID.randomUUID().toString();
              context.getBean(Greeter.class).greet(name);
              assertThat(store.read(RecordKey.of("greet", name))).isPresent();
            });
  }

  @Test
  void aChosenStoreWithNothingToConnectToFailsStartUpSayingWhatIsMissing() {
    runner
        .withPropertyValues("idempotent.store=jdbc")
        .run(
            context ->
                assertThat(context).getFailure().hasStackTraceContaining("idempotent.jdbc.url"));
    runner
        .withPropertyValues("idempotent.store=redisson")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("idempotent.redisson.address"));
  }

  @Test
  void aMeterRegistryBeanGetsTheMicrometerListenerUnlessMicrometerOrTheRegistryIsMissing() {
    runner
        .withBean(SimpleMeterRegistry.class)
        .run(context -> assertThat(context).hasSingleBean(MicrometerIdempotencyListener.class));
    runner.run(context -> assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class));
    runner
        .withBean(SimpleMeterRegistry.class)
        .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class);
            });
    MicrometerIdempotencyListener mine =
        MicrometerIdempotencyListener.builder(new SimpleMeterRegistry()).maxScopes(3).build();
    runner
        .withBean(SimpleMeterRegistry.class)
        .withBean(MicrometerIdempotencyListener.class, () -> mine)
        .run(
            context ->
                assertThat(context.getBean(MicrometerIdempotencyListener.class)).isSameAs(mine));
  }
}
