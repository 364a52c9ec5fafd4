package dev.idempotent.jdbc.internal;

import static dev.idempotent.jdbc.internal.DialectStatements.Param.AFTER_KEY;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.FINGERPRINT;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.KEY;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.LEASE;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.LIMIT;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.OFFSET;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.OUTCOME;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.OWNER;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.PREVIOUS_OWNER;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.SCOPE;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.SCOPE_ID;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.TTL;
import static dev.idempotent.jdbc.internal.DialectStatements.Param.UP_TO_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.jdbc.JdbcDialect;
import dev.idempotent.jdbc.internal.DialectStatements.Inserted;
import dev.idempotent.jdbc.internal.DialectStatements.Layout;
import dev.idempotent.jdbc.internal.DialectStatements.Sql;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DialectStatementsTest {
  /** Every dialect's statements bind the same values in the same order, one per placeholder. */
  @ParameterizedTest
  @EnumSource(JdbcDialect.class)
  void everyStatementBindsItsNamedParametersInOrder(JdbcDialect dialect) {
    for (Layout layout : Layout.values()) {
      DialectStatements sql = DialectStatements.of(dialect, "app.idem", layout);
      DialectStatements.Param scope = layout == Layout.LEGACY ? SCOPE : SCOPE_ID;
      assertThat(sql.layout()).isEqualTo(layout);
      assertBinds(sql.insertClaim(), scope, KEY, OWNER, FINGERPRINT, LEASE);
      assertBinds(sql.read(), scope, KEY);
      assertBinds(sql.takeOver(), OWNER, FINGERPRINT, LEASE, scope, KEY, PREVIOUS_OWNER);
      assertBinds(sql.complete(), OUTCOME, TTL, scope, KEY, OWNER);
      assertBinds(sql.release(), scope, KEY, OWNER);
      assertBinds(sql.renew(), LEASE, scope, KEY, OWNER);
      assertBinds(sql.delete(), scope, KEY);
      assertBinds(sql.purgeBatch(), LIMIT);
      for (int i = 0; i < 4; i++) {
        boolean after = (i & 1) != 0;
        boolean upTo = (i & 2) != 0;
        List<DialectStatements.Param> bound = sql.walkBound(after, upTo).params();
        assertThat(bound).as("walk bound").containsOnlyOnce(OFFSET);
        assertThat(bound.contains(AFTER_KEY)).isEqualTo(after);
        assertThat(bound.contains(UP_TO_KEY)).isEqualTo(upTo);
        assertThat(sql.walkDelete(after, upTo).params().stream().filter(p -> p != LIMIT).toList())
            .as("walk delete")
            .isEqualTo(bound.stream().filter(p -> p != OFFSET).toList());
        assertThat(sql.walkDelete(after, upTo).text()).contains("expires_at <=");
        assertThat(sql.walkBound(after, upTo).text())
            .contains("ORDER BY " + (layout == Layout.LEGACY ? "scope" : "scope_id") + ", idem_key")
            .doesNotContain(":");
      }
      assertBinds(sql.insertScope(), SCOPE_ID, SCOPE);
      assertBinds(sql.readScope(), SCOPE_ID);
      assertThat(sql.insertScope().text()).contains("app.idem_scope");
      assertThat(sql.insertClaim().text())
          .contains(layout == Layout.LEGACY ? "created_at" : "scope_id")
          .doesNotContain(layout == Layout.LEGACY ? "scope_id" : "created_at");
    }
    DialectStatements sql = DialectStatements.of(dialect, "app.idem");
    for (Sql s :
        List.of(
            sql.insertClaim(),
            sql.read(),
            sql.takeOver(),
            sql.complete(),
            sql.release(),
            sql.renew(),
            sql.delete(),
            sql.purgeBatch())) {
      assertThat(s.text()).contains("app.idem").doesNotContain(":");
    }
  }

  @Test
  void anUnknownParameterNameFailsWhenTheStatementIsBuilt() {
    assertThatThrownBy(() -> Sql.of("SELECT 1 FROM t WHERE a = :scope AND b = :nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NOPE");
  }

  /** The duplicate-answer rules: a row count, a duplicate-key error, a code. */
  @Test
  void eachDialectTellsAWonInsertFromATakenKeyByItsOwnRule() {
    DialectStatements postgres = DialectStatements.of(JdbcDialect.POSTGRESQL, "t");
    assertThat(postgres.inserted(1, -1)).isEqualTo(Inserted.WON);
    assertThat(postgres.inserted(0, -1)).isEqualTo(Inserted.TAKEN);
    assertThat(postgres.isDuplicateKey(new SQLException("dup", "23505")))
        .as("never expected")
        .isFalse();

    DialectStatements h2 = DialectStatements.of(JdbcDialect.H2, "t");
    assertThat(h2.inserted(1, -1)).isEqualTo(Inserted.WON);
    assertThat(h2.isDuplicateKey(new SQLException("dup", "23505"))).isTrue();
    assertThat(h2.isDuplicateKey(new SQLException("null", "23502")))
        .as("another constraint")
        .isFalse();

    DialectStatements mysql = DialectStatements.of(JdbcDialect.MYSQL, "t");
    assertThat(mysql.insertReportsCode()).isTrue();
    assertThat(mysql.inserted(1, DialectStatements.MySql.INSERTED_CODE)).isEqualTo(Inserted.WON);
    assertThat(mysql.inserted(1, DialectStatements.MySql.EXISTS_CODE))
        .as("found rows")
        .isEqualTo(Inserted.TAKEN);
    assertThat(mysql.inserted(0, DialectStatements.MySql.EXISTS_CODE))
        .as("affected rows")
        .isEqualTo(Inserted.TAKEN);
    assertThat(mysql.inserted(0, -1)).as("no code, nothing inserted").isEqualTo(Inserted.TAKEN);
    assertThat(mysql.inserted(1, -1)).as("no code").isEqualTo(Inserted.UNKNOWN);
    assertThat(mysql.inserted(1, 7)).as("an insert id").isEqualTo(Inserted.UNKNOWN);
  }

  private static void assertBinds(Sql sql, DialectStatements.Param... params) {
    assertThat(sql.params()).as(sql.text()).containsExactly(params);
    assertThat(sql.text().chars().filter(ch -> ch == '?').count())
        .as(sql.text())
        .isEqualTo(params.length);
  }
}
