package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The code of docs/stores/jdbc.md between its markers, run on H2: the page shows this region
 * (checked by the examples module's {@code DocsSnippetsTest}).
 */
class JdbcStoreDocsTest {
  @Test
  void theStoreOfTheDocsReplays() throws Exception {
    DataSource dataSource = TestDatabases.h2("docs");
    JdbcIdempotencyStore.builder(dataSource).createTable(true).build().close();

    // spotless:off
    // docs/stores/jdbc.md: builder (begin)
    IdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
        .table("idempotency_record")            // default; may be schema-qualified
        .queryTimeout(Duration.ofSeconds(5))    // default; bounds every store call
        .build();                               // dialect from DatabaseMetaData; or .dialect(JdbcDialect.POSTGRESQL)
    // docs/stores/jdbc.md: builder (end)
    // spotless:on

    try (store) {
      Idempotency idem =
          Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
      IdempotencyPolicy policy =
          IdempotencyPolicy.builder("docs.jdbc").resultType(Integer.class).build();
      AtomicInteger runs = new AtomicInteger();
      assertThat(idem.call(policy, "k1", runs::incrementAndGet)).isEqualTo(1);
      assertThat(idem.call(policy, "k1", runs::incrementAndGet)).isEqualTo(1);
      assertThat(runs).hasValue(1);
    }
  }
}
