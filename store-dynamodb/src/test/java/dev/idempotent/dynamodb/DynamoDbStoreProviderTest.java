package dev.idempotent.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.dynamodb.internal.DynamoDbStoreProvider;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class DynamoDbStoreProviderTest {
  private final DynamoDbStoreProvider provider = new DynamoDbStoreProvider();

  /** The SDK's default credential chain reads these system properties. */
  @BeforeAll
  static void localCredentials() {
    System.setProperty("aws.accessKeyId", "local");
    System.setProperty("aws.secretAccessKey", "local");
  }

  @AfterAll
  static void clearCredentials() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  @Test
  void serviceLoaderFindsTheDynamoDbProvider() {
    List<String> names =
        ServiceLoader.load(IdempotencyStoreProvider.class).stream()
            .map(p -> p.get().name())
            .toList();
    assertThat(names).contains("dynamodb");
  }

  @Test
  void settingsMakeAWorkingStoreThatCreatesItsTable() throws InterruptedException {
    String table = DynamoDbTestEnvironment.freshTable("idem-provider");
    try (IdempotencyStore store =
        provider.create(
            StoreSettings.of(
                Map.of(
                    DynamoDbStoreSettings.ENDPOINT.name(),
                    DynamoDbTestEnvironment.endpoint().toString(),
                    DynamoDbStoreSettings.REGION.name(),
                    "us-east-1",
                    DynamoDbStoreSettings.TABLE.name(),
                    table,
                    DynamoDbStoreSettings.CREATE_TABLE.name(),
                    "true",
                    DynamoDbStoreSettings.TIMEOUT.name(),
                    "10s",
                    DynamoDbStoreSettings.MAX_CLOCK_SKEW.name(),
                    "200ms")))) {
      assertThat(store).isInstanceOf(DynamoDbIdempotencyStore.class);
      assertThat(((DynamoDbIdempotencyStore) store).table()).isEqualTo(table);
      RecordKey key = RecordKey.of("provider", "k");
      assertThat(store.claim(key, "o", null, Duration.ofSeconds(30)).isAcquired()).isTrue();
      assertThat(store.complete(key, "o", new byte[] {4}, Duration.ofMinutes(1))).isTrue();
      assertThat(store.read(key).orElseThrow().outcome()).containsExactly(4);
    } finally {
      DynamoDbTestEnvironment.deleteTable(table);
    }
  }

  @Test
  void invalidSettingsAreNamed() {
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(Map.of(DynamoDbStoreSettings.TABLE.name(), "a b"))))
        .isInstanceOf(dev.idempotent.IdempotencyConfigurationException.class)
        .hasMessageContaining(DynamoDbStoreSettings.TABLE.name());
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(
                        Map.of(DynamoDbStoreSettings.ENDPOINT.name(), "127.0.0.1:4567"))))
        .isInstanceOf(dev.idempotent.IdempotencyConfigurationException.class)
        .hasMessageContaining(DynamoDbStoreSettings.ENDPOINT.name())
        .hasMessageContaining("http://host:port");
    assertThat(provider.settings()).isEqualTo(DynamoDbStoreSettings.ALL);
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(Map.of(DynamoDbStoreSettings.CREATE_TABLE.name(), "yes"))))
        .isInstanceOf(dev.idempotent.IdempotencyConfigurationException.class)
        .hasMessageContaining(DynamoDbStoreSettings.CREATE_TABLE.name());
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(Map.of(DynamoDbStoreSettings.TIMEOUT.name(), "soon"))))
        .isInstanceOf(dev.idempotent.IdempotencyConfigurationException.class)
        .hasMessageContaining(DynamoDbStoreSettings.TIMEOUT.name());
  }
}
