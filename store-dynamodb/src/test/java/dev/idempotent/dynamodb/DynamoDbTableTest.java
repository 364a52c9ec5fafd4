package dev.idempotent.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.spi.RecordKey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/** The table: created on first use when allowed, else verified and reported; the first start. */
class DynamoDbTableTest {
  @Test
  void manyInstancesStartingAtOnceOnAMissingTableAllComeUp() throws Exception {
    String table = DynamoDbTestEnvironment.freshTable("idem-first-start");
    int instances = 8;
    ExecutorService pool = Executors.newFixedThreadPool(instances);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<DynamoDbIdempotencyStore>> started = new ArrayList<>();
    try {
      for (int i = 0; i < instances; i++) {
        started.add(
            pool.submit(
                () -> {
                  start.await();
                  return DynamoDbTestEnvironment.storeOn(table).build();
                }));
      }
      start.countDown();
      List<DynamoDbIdempotencyStore> stores = new ArrayList<>();
      for (Future<DynamoDbIdempotencyStore> f : started) {
        stores.add(f.get(2, TimeUnit.MINUTES));
      }
      RecordKey shared = RecordKey.of("first-start", "k");
      int acquired = 0;
      for (int i = 0; i < stores.size(); i++) {
        if (stores.get(i).claim(shared, "owner-" + i, null, Duration.ofMinutes(1)).isAcquired()) {
          acquired++;
        }
      }
      assertThat(acquired).as("instances that acquired the shared key").isEqualTo(1);
      TableDescription created =
          DynamoDbTestEnvironment.client().describeTable(b -> b.tableName(table)).table();
      assertThat(created.keySchema()).hasSize(1);
      assertThat(created.keySchema().get(0).attributeName()).isEqualTo("pk");
      assertThat(created.keySchema().get(0).keyType()).isEqualTo(KeyType.HASH);
      assertThat(created.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
      stores.forEach(DynamoDbIdempotencyStore::close);
    } finally {
      pool.shutdownNow();
      DynamoDbTestEnvironment.deleteTable(table);
    }
  }

  @Test
  void aMissingTableThatMayNotBeCreatedIsReportedWithWhatToDo() {
    String table = DynamoDbTestEnvironment.freshTable("idem-missing");

    assertThatThrownBy(() -> DynamoDbTestEnvironment.storeOn(table).createTable(false).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("table " + table + " does not exist")
        .hasMessageContaining("idempotent.dynamodb.create-table=true")
        .hasMessageContaining("docs/stores/dynamodb.md");
    assertThat(DynamoDbTestEnvironment.client().listTables().tableNames()).doesNotContain(table);
  }

  @Test
  void aTableWithAnotherKeyIsRefused() throws InterruptedException {
    String table = DynamoDbTestEnvironment.freshTable("idem-other-key");
    DynamoDbTestEnvironment.client()
        .createTable(
            b ->
                b.tableName(table)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                        a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH)));
    try {
      assertThatThrownBy(() -> DynamoDbTestEnvironment.storeOn(table).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("table " + table)
          .hasMessageContaining("partition key pk of type S");
    } finally {
      DynamoDbTestEnvironment.deleteTable(table);
    }
  }

  @Test
  void anEndpointThatNeverAnswersFailsWithinTheTimeout() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> accepted = new ArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(silent.accept());
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      long start = System.nanoTime();

      assertThatThrownBy(
              () ->
                  DynamoDbIdempotencyStore.builder()
                      .endpoint(java.net.URI.create("http://127.0.0.1:" + silent.getLocalPort()))
                      .region(Region.US_EAST_1)
                      .credentials(DynamoDbTestEnvironment.credentials())
                      .timeout(Duration.ofMillis(500))
                      .build())
          .isInstanceOf(RuntimeException.class);

      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("time to fail against a silent endpoint")
          .isLessThan(Duration.ofSeconds(20));
      for (Socket s : accepted) {
        s.close();
      }
    }
  }
}
