package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.RecordKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The operator's query of docs/stores/jdbc.md, run as the page shows it (on a table of its own): it
 * reads a record back with its scope's text, on PostgreSQL and on MariaDB.
 */
class OperatorQueryDocsTest {
  private static final String MARKER =
      "<!-- tested-by: store-jdbc/src/test/java/dev/idempotent/jdbc/OperatorQueryDocsTest.java -->";
  private static final String SCOPE =
      "com.example.orders.OrderService.submit(com.example.orders.SubmitRequest)";

  /** The statements of the block after {@link #MARKER}, in order (comment lines dropped). */
  private static List<String> documentedQueries() throws Exception {
    List<String> lines =
        Files.readAllLines(Path.of("").toAbsolutePath().getParent().resolve("docs/stores/jdbc.md"));
    int at = lines.indexOf(MARKER);
    assertThat(at).as("the marker in docs/stores/jdbc.md").isNotNegative();
    assertThat(lines.get(at + 1)).isEqualTo("```sql");
    List<String> queries = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (int i = at + 2; !lines.get(i).equals("```"); i++) {
      String line = lines.get(i).strip();
      if (line.startsWith("--")) {
        continue;
      }
      current.append(line).append(' ');
      if (line.endsWith(";")) {
        queries.add(current.toString().strip().replaceAll(";$", ""));
        current.setLength(0);
      }
    }
    assertThat(queries).as("a PostgreSQL and a MySQL/MariaDB query").hasSize(2);
    return queries;
  }

  private static void readsTheRecordWithItsScope(DataSource dataSource, String query, String table)
      throws Exception {
    try (JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(dataSource).table(table).createTable(true).build()) {
      RecordKey key = RecordKey.of(SCOPE, "order-17");
      store.delete(key);
      assertThat(store.claim(key, "owner-1", null, Duration.ofSeconds(30)).isAcquired()).isTrue();
      assertThat(store.complete(key, "owner-1", new byte[] {1, 2, 3}, Duration.ofMinutes(5)))
          .isTrue();
      String sql =
          query
                  .replace("idempotency_record_scope", table + "_scope")
                  .replace("idempotency_record ", table + " ")
              + " WHERE r.idem_key = 'order-17'";
      try (Connection c = dataSource.getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery(sql)) {
        assertThat(rs.next()).as("the documented query finds the record").isTrue();
        assertThat(rs.getString("scope")).isEqualTo(SCOPE);
        assertThat(rs.getString("idem_key")).isEqualTo("order-17");
        assertThat(rs.next()).isFalse();
      }
    }
  }

  @Test
  void thePostgresQueryReadsTheScope() throws Exception {
    readsTheRecordWithItsScope(
        TestDatabases.postgres(), documentedQueries().get(0), "docs_query_record");
  }

  @Test
  void theMariaDbQueryReadsTheScope() throws Exception {
    readsTheRecordWithItsScope(
        TestDatabases.mariadb(), documentedQueries().get(1), "docs_query_record");
  }
}
