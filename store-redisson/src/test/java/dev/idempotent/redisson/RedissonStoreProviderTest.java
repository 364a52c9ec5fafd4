package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.redisson.internal.RedissonStoreProvider;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.StoreSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedissonStoreProviderTest {
  private final RedissonStoreProvider provider = new RedissonStoreProvider();

  @Test
  void serviceLoaderFindsTheRedissonProvider() {
    List<String> names =
        ServiceLoader.load(IdempotencyStoreProvider.class).stream()
            .map(p -> p.get().name())
            .toList();
    assertThat(names).contains("redisson");
  }

  @Test
  void missingAddressNamesTheSetting() {
    assertThatThrownBy(() -> provider.create(StoreSettings.of(Map.of())))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.redisson.address")
        .hasMessageContaining("idempotent.redisson.config");
  }

  @Test
  void invalidSettingsAreNamed() {
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(
                        Map.of(
                            "idempotent.redisson.address",
                            "redis://127.0.0.1:1",
                            "idempotent.redisson.config",
                            "/x.yaml"))))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("keep one");
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(Map.of("idempotent.redisson.address", "127.0.0.1:6379"))))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("redis://host:port");
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(
                        Map.of(
                            "idempotent.redisson.address",
                            "redis://127.0.0.1:1",
                            "idempotent.redisson.timeout",
                            "soon"))))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.redisson.timeout");
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(
                        Map.of(
                            "idempotent.redisson.address",
                            "redis://127.0.0.1:1",
                            "idempotent.redisson.sync-replicas",
                            "-2"))))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.redisson.sync-replicas");
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(
                        Map.of("idempotent.redisson.config", "/nonexistent/redisson.yaml"))))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.redisson.config")
        .hasMessageContaining("/nonexistent/redisson.yaml");
  }

  @Test
  void addressWithCredentialsIsRedactedInMessages() {
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(
                        Map.of(
                            "idempotent.redisson.address", "tcp://user:Hunter2@127.0.0.1:6379"))))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("tcp://***@127.0.0.1:6379")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("Hunter2"));
  }

  @Test
  void createsAWorkingStoreThatOwnsItsClient() {
    String url = RedisTestEnvironment.standaloneUrl();
    IdempotencyStore store =
        provider.create(
            StoreSettings.of(
                Map.of(
                    "idempotent.redisson.address",
                    url,
                    "idempotent.redisson.key-prefix",
                    "idem-provider:",
                    "idempotent.redisson.timeout",
                    "2s")));
    RecordKey key = RecordKey.of("provider-" + UUID.randomUUID(), "k");
    try {
      assertThat(store.claim(key, "o", null, Duration.ofSeconds(30)).isAcquired()).isTrue();
      assertThat(store.read(key)).isPresent();
    } finally {
      store.close();
    }
    assertThatThrownBy(() -> store.read(key))
        .as("the client was shut down with the store")
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void keyPrefixWithBracesIsRejectedNamingTheSetting() {
    String url = RedisTestEnvironment.standaloneUrl();
    assertThatThrownBy(
            () ->
                provider.create(
                    StoreSettings.of(
                        Map.of(
                            "idempotent.redisson.address",
                            url,
                            "idempotent.redisson.key-prefix",
                            "idem{x}:"))))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.redisson.key-prefix")
        .hasMessageContaining("brace");
  }

  @Test
  void readsARedissonYamlFile(@TempDir Path dir) throws Exception {
    String url = RedisTestEnvironment.standaloneUrl();
    Path yaml = dir.resolve("redisson.yaml");
    Files.writeString(
        yaml, "singleServerConfig:\n  address: \"" + url + "\"\n  connectionMinimumIdleSize: 2\n");
    try (IdempotencyStore store =
        provider.create(
            StoreSettings.of(
                Map.of(
                    "idempotent.redisson.config",
                    yaml.toString(),
                    "idempotent.redisson.timeout",
                    "2s")))) {
      RecordKey key = RecordKey.of("yaml-" + UUID.randomUUID(), "k");
      assertThat(store.claim(key, "o", "fp", Duration.ofSeconds(30)).isAcquired()).isTrue();
    }
  }
}
