package dev.idempotent.web;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import jakarta.servlet.Filter;
import java.util.List;

/**
 * The filter's rules on the JDBC store on PostgreSQL ({@code IDEMPOTENT_POSTGRES_URL}). On Jetty
 * only: the container's part is proved by the memory-store tests on both containers, the store's
 * part here.
 */
class JettyPostgresFilterTest extends ServletConformance {
  private HikariDataSource pool;

  @Override
  TestServer start(List<Filter> filters, TestApp app) throws Exception {
    return TestServer.jetty(filters, app);
  }

  @Override
  protected IdempotencyStore store() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(
        TestServices.require(
            TestServices.POSTGRES_VARIABLE,
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
            5432));
    config.setMaximumPoolSize(10);
    config.setConnectionTimeout(5_000);
    pool = new HikariDataSource(config);
    return JdbcIdempotencyStore.builder(pool)
        .table("idempotency_web_test")
        .createTable(true)
        .closing(pool)
        .build();
  }
}
