package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.jdbc.internal.JdbcUrls;
import dev.idempotent.jdbc.internal.SchemaScript;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class JdbcIdempotencyStoreBuilderTest {
  private static final DataSource H2 = TestDatabases.h2("builder");

  @Test
  void badSettingsNameTheValueAndTheFix() {
    assertThatThrownBy(() -> JdbcIdempotencyStore.builder(H2).table("records; DROP TABLE x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("records; DROP TABLE x")
        .hasMessageContaining("idempotency_record");
    assertThatThrownBy(() -> JdbcIdempotencyStore.builder(H2).queryTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> JdbcIdempotencyStore.builder(H2).purgeEvery(Duration.ofMinutes(1), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batchSize");
    assertThatThrownBy(() -> JdbcIdempotencyStore.builder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("dataSource");
    try (JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(H2).dialect(JdbcDialect.H2).build()) {
      assertThatThrownBy(() -> store.purgeBatch(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("batchSize");
      assertThatThrownBy(() -> store.purgeBatch(100_001))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("100001");
    }
  }

  @Test
  void dialectIsDetectedFromTheProductName() {
    assertThat(JdbcDialect.forProductName("PostgreSQL")).contains(JdbcDialect.POSTGRESQL);
    assertThat(JdbcDialect.forProductName("MySQL")).contains(JdbcDialect.MYSQL);
    assertThat(JdbcDialect.forProductName("MariaDB")).contains(JdbcDialect.MARIADB);
    assertThat(JdbcDialect.forProductName("H2")).contains(JdbcDialect.H2);
    assertThat(JdbcDialect.forProductName("Oracle")).isEmpty();
  }

  @Test
  void schemaStatementsFollowTheTableName() {
    List<String> ddl = SchemaScript.statements(JdbcDialect.POSTGRESQL, "app.payments_idem");
    assertThat(ddl).hasSize(5).allSatisfy(s -> assertThat(s).doesNotContain("--"));
    assertThat(ddl.get(0))
        .startsWith("CREATE TABLE IF NOT EXISTS app.payments_idem_meta (")
        .contains("CONSTRAINT payments_idem_meta_pk PRIMARY KEY (format_version)");
    assertThat(ddl.get(1))
        .as("the version before the other tables")
        .startsWith("INSERT INTO app.payments_idem_meta (format_version)")
        .contains("SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM app.payments_idem_meta)");
    assertThat(ddl.get(2))
        .startsWith("CREATE TABLE IF NOT EXISTS app.payments_idem_scope (")
        .contains("CONSTRAINT payments_idem_scope_pk PRIMARY KEY (scope_id)");
    assertThat(ddl.get(3))
        .startsWith("CREATE TABLE IF NOT EXISTS app.payments_idem (")
        .contains("CONSTRAINT payments_idem_pk PRIMARY KEY (scope_id, idem_key)");
    assertThat(ddl.get(4))
        .startsWith(
            "CREATE INDEX IF NOT EXISTS payments_idem_expiry_idx\n  ON app.payments_idem (");
    assertThat(SchemaScript.statements(JdbcDialect.MYSQL, "idempotency_record")).hasSize(4);
    assertThat(SchemaScript.statements(JdbcDialect.MARIADB, "idempotency_record"))
        .isEqualTo(SchemaScript.statements(JdbcDialect.MYSQL, "idempotency_record"));
    assertThat(SchemaScript.statements(JdbcDialect.H2, "idempotency_record")).hasSize(5);
  }

  @Test
  void passwordsAreMaskedInUrls() {
    assertThat(
            JdbcUrls.withoutPassword("jdbc:postgresql://h:5432/db?user=a&password=secret&ssl=true"))
        .isEqualTo("jdbc:postgresql://h:5432/db?user=a&password=****&ssl=true");
    assertThat(JdbcUrls.withoutPassword("jdbc:mysql://a:secret@h:3306/db"))
        .isEqualTo("jdbc:mysql://a:****@h:3306/db");
    assertThat(JdbcUrls.withoutPassword("jdbc:h2:mem:x;USER=sa;PASSWORD=secret"))
        .doesNotContain("secret");
  }
}
