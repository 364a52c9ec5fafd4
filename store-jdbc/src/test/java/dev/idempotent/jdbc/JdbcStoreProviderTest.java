package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.jdbc.internal.JdbcStoreProvider;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class JdbcStoreProviderTest {
  private static IdempotencyStoreProvider provider() {
    return ServiceLoader.load(IdempotencyStoreProvider.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(p -> p.name().equals("jdbc"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no provider named jdbc"));
  }

  @Test
  void serviceLoaderFindsJdbc() {
    assertThat(provider()).isInstanceOf(JdbcStoreProvider.class);
  }

  @Test
  void h2UrlWithCreateTableWorksAndCloseClosesThePool() {
    IdempotencyStore store =
        provider()
            .create(
                StoreSettings.of(
                    Map.of(
                        "idempotent.jdbc.url", "jdbc:h2:mem:provider;DB_CLOSE_DELAY=-1",
                        "idempotent.jdbc.username", "sa",
                        "idempotent.jdbc.table", "provider_records",
                        "idempotent.jdbc.create-table", "true",
                        "idempotent.jdbc.pool-size", "2",
                        "idempotent.jdbc.query-timeout", "2s")));
    RecordKey key = RecordKey.of("provider", "k1");
    assertThat(store).isInstanceOf(JdbcIdempotencyStore.class);
    assertThat(((JdbcIdempotencyStore) store).table()).isEqualTo("provider_records");
    assertThat(store.claim(key, "o1", null, Duration.ofMinutes(1)).isAcquired()).isTrue();
    assertThat(store.complete(key, "o1", new byte[] {3}, Duration.ofMinutes(1))).isTrue();
    assertThat(store.read(key).orElseThrow().outcome()).containsExactly(3);
    store.close();
    assertThatThrownBy(() -> store.read(key)).isInstanceOf(JdbcStoreException.class);
  }

  @Test
  void unreachableDatabaseFailsFastNamingTheUrlButNotThePassword() {
    String secret = "s3cr3t-Pw";
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                provider()
                    .create(
                        StoreSettings.of(
                            Map.of(
                                "idempotent.jdbc.url",
                                "jdbc:postgresql://127.0.0.1:1/test?user=app&password=" + secret,
                                "idempotent.jdbc.password",
                                secret))))
        .satisfies(
            e -> {
              assertThat(e.getMessage())
                  .contains("jdbc:postgresql://127.0.0.1:1/test")
                  .doesNotContain(secret);
              for (Throwable t = e; t != null; t = t.getCause()) {
                assertThat(String.valueOf(t.getMessage())).doesNotContain(secret);
              }
            });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void settingsErrorsNameTheSetting() {
    assertThatThrownBy(() -> provider().create(StoreSettings.of(Map.of())))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.jdbc.url");
    assertThatThrownBy(
            () ->
                provider()
                    .create(
                        StoreSettings.of(
                            Map.of(
                                "idempotent.jdbc.url",
                                "jdbc:h2:mem:x",
                                "idempotent.jdbc.pool-size",
                                "lots"))))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.jdbc.pool-size")
        .hasMessageContaining("lots");
    assertThatThrownBy(
            () ->
                provider()
                    .create(
                        StoreSettings.of(
                            Map.of(
                                "idempotent.jdbc.url",
                                "jdbc:h2:mem:x",
                                "idempotent.jdbc.create-table",
                                "yes"))))
        .isInstanceOfAny(IllegalArgumentException.class, IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.jdbc.create-table");
  }
}
