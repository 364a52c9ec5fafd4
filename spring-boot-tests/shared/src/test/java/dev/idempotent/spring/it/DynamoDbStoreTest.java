package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.net.URI;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanDefinitionCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB store chosen by {@code idempotent.store=dynamodb}, on dynalite: on clients of its
 * own from the properties, or on the application's {@code DynamoDbClient} and {@code
 * DynamoDbAsyncClient}; the table property reaches the store, a woven call replays and the health
 * indicator reports the store up.
 */
class DynamoDbStoreTest {
  private static final String TABLE = "it-boot-dynamodb";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(StarterAutoConfigurations.all())
          .withBean(Greeter.class)
          .withPropertyValues(
              "idempotent.store=dynamodb",
              "idempotent.dynamodb.table=" + TABLE,
              "idempotent.dynamodb.create-table=true");

  @BeforeAll
  static void localCredentials() {
    TestServices.dynamoDb();
    // the store's own clients take the SDK's credential chain; dynalite checks no signature
    System.setProperty("aws.accessKeyId", "local");
    System.setProperty("aws.secretAccessKey", "local");
  }

  @Test
  void theEndpointPropertyGivesTheStoreClientsOfItsOwn() {
    runner
        .withPropertyValues(
            "idempotent.dynamodb.endpoint=" + TestServices.dynamoDb(),
            "idempotent.dynamodb.region=us-east-1")
        .run(this::replaysInTheTableAndIsUp);
  }

  @Test
  void theApplicationsClientsAreUsedWhenItHasThem() {
    AtomicInteger requests = new AtomicInteger();
    ExecutionInterceptor counting =
        new ExecutionInterceptor() {
          @Override
          public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes a) {
            requests.incrementAndGet();
          }
        };
    try (DynamoDbClient client = client(counting);
        DynamoDbAsyncClient asyncClient = asyncClient(counting)) {
      runner
          .withBean(DynamoDbClient.class, () -> client, applicationOwned())
          .withBean(DynamoDbAsyncClient.class, () -> asyncClient, applicationOwned())
          .run(
              context -> {
                int before = requests.get();
                replaysInTheTableAndIsUp(context);
                assertThat(requests.get())
                    .as("requests on the application's clients")
                    .isGreaterThan(before);
              });
      // the store left the application's clients open
      assertThat(client.listTables().tableNames()).contains(TABLE);
    }
  }

  @Test
  void aBlockingClientWithoutAnAsynchronousOneFailsStartUpNamingTheMissingBean() {
    try (DynamoDbClient client = client(null)) {
      runner
          .withBean(DynamoDbClient.class, () -> client, applicationOwned())
          .run(
              context ->
                  assertThat(context)
                      .getFailure()
                      .hasStackTraceContaining("no DynamoDbAsyncClient bean"));
    }
  }

  private void replaysInTheTableAndIsUp(AssertableApplicationContext context) throws Exception {
    assertThat(context).hasNotFailed().hasSingleBean(IdempotencyStore.class);
    IdempotencyStore store = context.getBean(IdempotencyStore.class);
    assertThat(store).isInstanceOf(DynamoDbIdempotencyStore.class);
    assertThat(((DynamoDbIdempotencyStore) store).table()).isEqualTo(TABLE);
    Greeter greeter = context.getBean(Greeter.class);
    String name = UUID.randomUUID().toString();
    String first = greeter.greet(name);
    assertThat(greeter.greet(name)).isEqualTo(first);
    assertThat(greeter.executions()).isEqualTo(1);
    assertThat(store.read(RecordKey.of("greet", name))).isPresent();
    assertThat(StoreHealthStatus.of(context)).startsWith("UP ").contains("default=UP");
  }

  /** The application closes its clients itself (Spring would close an AutoCloseable bean). */
  private static BeanDefinitionCustomizer applicationOwned() {
    return bean -> bean.setDestroyMethodName("");
  }

  private static DynamoDbClient client(ExecutionInterceptor interceptor) {
    var builder =
        DynamoDbClient.builder()
            .endpointOverride(URI.create(TestServices.dynamoDb()))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")));
    if (interceptor != null) {
      builder.overrideConfiguration(c -> c.addExecutionInterceptor(interceptor));
    }
    return builder.build();
  }

  private static DynamoDbAsyncClient asyncClient(ExecutionInterceptor interceptor) {
    return DynamoDbAsyncClient.builder()
        .endpointOverride(URI.create(TestServices.dynamoDb()))
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
        .overrideConfiguration(c -> c.addExecutionInterceptor(interceptor))
        .build();
  }
}
