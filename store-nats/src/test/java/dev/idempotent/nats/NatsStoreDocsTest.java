package dev.idempotent.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.nats.internal.NatsStoreProvider;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.StoreSettings;
import io.nats.client.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The code of docs/stores/nats.md between its markers, run on the test NATS server ({@code
 * IDEMPOTENT_JETSTREAM_URL}), and the store built from the page's settings by its provider.
 */
class NatsStoreDocsTest {
  @Test
  void theStoreOfTheDocsReplays() {
    Connection connection = NatsTestEnvironment.connect();
    String bucket = NatsTestEnvironment.bucketName("docs");
    try {
      // spotless:off
      // docs/stores/nats.md: builder (begin)
      IdempotencyStore store = NatsIdempotencyStore.builder(connection)
          .bucket(bucket)                         // default "idempotent"
          .longestTtl(Duration.ofHours(24))       // the bucket's max age must exceed it
          .build();
      // docs/stores/nats.md: builder (end)
      // spotless:on

      Idempotency idem =
          Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
      IdempotencyPolicy policy =
          IdempotencyPolicy.builder("docs.nats." + UUID.randomUUID())
              .resultType(Integer.class)
              .build();
      AtomicInteger runs = new AtomicInteger();
      assertThat(idem.call(policy, "k1", runs::incrementAndGet)).isEqualTo(1);
      assertThat(idem.call(policy, "k1", runs::incrementAndGet)).isEqualTo(1);
      assertThat(runs).hasValue(1);
      store.close();
    } finally {
      NatsTestEnvironment.deleteBucket(connection, bucket);
      NatsTestEnvironment.close(connection);
    }
  }

  @Test
  void theProviderIsFoundByNameAndBuildsTheStoreFromSettings() {
    IdempotencyStoreProvider provider =
        ServiceLoader.load(IdempotencyStoreProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals("nats"))
            .findFirst()
            .orElseThrow();
    String bucket = NatsTestEnvironment.bucketName("provider");
    try (IdempotencyStore store =
        provider.create(
            StoreSettings.of(
                Map.of(
                    NatsStoreSettings.URL.name(),
                    NatsTestEnvironment.url(),
                    NatsStoreSettings.BUCKET.name(),
                    bucket,
                    NatsStoreSettings.LONGEST_TTL.name(),
                    "1h",
                    NatsStoreSettings.MAX_AGE.name(),
                    "2h")))) {
      assertThat(store).isInstanceOf(NatsIdempotencyStore.class);
      assertThat(((NatsIdempotencyStore) store).bucket()).isEqualTo(bucket);
      assertThat(store.toString()).contains("maxAge=PT2H");
    } finally {
      Connection c = NatsTestEnvironment.connect();
      NatsTestEnvironment.deleteBucket(c, bucket);
      NatsTestEnvironment.close(c);
    }
  }

  @Test
  void theProviderNamesAMissingOrWrongSetting() {
    NatsStoreProvider provider = new NatsStoreProvider();
    assertThatThrownBy(() -> provider.create(StoreSettings.of(Map.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(NatsStoreSettings.URL.name());
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(Map.of(NatsStoreSettings.URL.name(), "http://x:4222"))))
        .hasMessageContaining("nats://host:port");
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(
                        Map.of(
                            NatsStoreSettings.URL.name(),
                            NatsTestEnvironment.url(),
                            NatsStoreSettings.CREATE_BUCKET.name(),
                            "maybe"))))
        .hasMessageContaining(NatsStoreSettings.CREATE_BUCKET.name())
        .hasMessageContaining("=maybe");
  }
}
