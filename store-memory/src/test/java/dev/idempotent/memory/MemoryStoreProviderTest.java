package dev.idempotent.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.memory.internal.MemoryStoreProvider;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MemoryStoreProviderTest {

  private static IdempotencyStoreProvider memoryProvider() {
    List<IdempotencyStoreProvider> found =
        ServiceLoader.load(IdempotencyStoreProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals("memory"))
            .toList();
    assertThat(found).as("providers named memory on the classpath").hasSize(1);
    return found.get(0);
  }

  @Test
  void serviceLoaderFindsTheMemoryProvider() {
    assertThat(memoryProvider()).isInstanceOf(MemoryStoreProvider.class);
  }

  @Test
  void createsAWorkingStoreWithoutSettings() {
    try (IdempotencyStore store = memoryProvider().create(StoreSettings.of(Map.of()))) {
      assertThat(store).isInstanceOf(CaffeineIdempotencyStore.class);
      assertThat(store).hasToString("CaffeineIdempotencyStore{maximumSize=100000}");
      RecordKey key = RecordKey.of("scope", "k");
      assertThat(store.claim(key, "o", null, Duration.ofSeconds(5)).isAcquired()).isTrue();
    }
  }

  @Test
  void readsMaximumSize() {
    IdempotencyStore store =
        memoryProvider()
            .create(StoreSettings.of(Map.of(MemoryStoreSettings.MAXIMUM_SIZE.name(), " 2_500 ")));
    assertThat(store).hasToString("CaffeineIdempotencyStore{maximumSize=2500}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-5", "abc", "1.5", "99999999999999999999"})
  void rejectsABadMaximumSizeNamingTheSetting(String bad) {
    StoreSettings settings = StoreSettings.of(Map.of("idempotent.memory.maximum-size", bad));
    assertThatThrownBy(() -> memoryProvider().create(settings))
        .isInstanceOf(dev.idempotent.IdempotencyConfigurationException.class)
        .hasMessageStartingWith("idempotent.memory.maximum-size=" + bad + " ")
        .hasMessageContaining("a whole number from 1 to")
        .hasMessageContaining("(default 100000)");
  }
}
