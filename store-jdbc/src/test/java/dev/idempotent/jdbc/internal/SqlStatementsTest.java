package dev.idempotent.jdbc.internal;

import static dev.idempotent.jdbc.internal.Sql.Param.AFTER_KEY;
import static dev.idempotent.jdbc.internal.Sql.Param.AGE;
import static dev.idempotent.jdbc.internal.Sql.Param.FINGERPRINT;
import static dev.idempotent.jdbc.internal.Sql.Param.KEY;
import static dev.idempotent.jdbc.internal.Sql.Param.LEASE;
import static dev.idempotent.jdbc.internal.Sql.Param.LIMIT;
import static dev.idempotent.jdbc.internal.Sql.Param.OFFSET;
import static dev.idempotent.jdbc.internal.Sql.Param.OUTCOME;
import static dev.idempotent.jdbc.internal.Sql.Param.OWNER;
import static dev.idempotent.jdbc.internal.Sql.Param.PREVIOUS_OWNER;
import static dev.idempotent.jdbc.internal.Sql.Param.SCOPE;
import static dev.idempotent.jdbc.internal.Sql.Param.SCOPE_ID;
import static dev.idempotent.jdbc.internal.Sql.Param.TTL;
import static dev.idempotent.jdbc.internal.Sql.Param.UP_TO_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.jdbc.JdbcDialect;
import dev.idempotent.jdbc.internal.SqlStatements.ClaimAnswer;
import dev.idempotent.jdbc.internal.SqlStatements.Inserted;
import dev.idempotent.jdbc.internal.SqlStatements.Refusal;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SqlStatementsTest {
  /** Every dialect's statements bind the same values in the same order, one per placeholder. */
  @ParameterizedTest
  @EnumSource(JdbcDialect.class)
  void everyStatementBindsItsNamedParametersInOrder(JdbcDialect dialect) {
    SqlStatements sql = SqlStatements.of(dialect, "app.idem");
    if (dialect == JdbcDialect.POSTGRESQL) {
      assertBinds(sql.purgeScopes(), AGE, LIMIT, AGE);
    } else {
      assertBinds(sql.purgeScopes(), AGE, LIMIT);
    }
    assertBinds(sql.claim(), SCOPE_ID, KEY, OWNER, FINGERPRINT, LEASE);
    assertBinds(sql.read(), SCOPE_ID, KEY);
    assertBinds(sql.takeOver(), OWNER, FINGERPRINT, LEASE, SCOPE_ID, KEY, PREVIOUS_OWNER);
    assertBinds(sql.takeOverOwnerless(), OWNER, FINGERPRINT, LEASE, SCOPE_ID, KEY);
    assertBinds(sql.complete(), OUTCOME, TTL, SCOPE_ID, KEY, OWNER);
    assertBinds(sql.release(), SCOPE_ID, KEY, OWNER);
    assertBinds(sql.renew(), LEASE, SCOPE_ID, KEY, OWNER);
    assertBinds(sql.delete(), SCOPE_ID, KEY);
    assertBinds(sql.purgeBatch(), LIMIT);
    assertBinds(sql.refreshScope(), SCOPE_ID, SCOPE);
    assertBinds(sql.insertScope(), SCOPE_ID, SCOPE);
    assertBinds(sql.readScope(), SCOPE_ID);
    assertBinds(sql.readFormat());
    for (int i = 0; i < 4; i++) {
      boolean after = (i & 1) != 0;
      boolean upTo = (i & 2) != 0;
      List<Sql.Param> bound = sql.walkBound(after, upTo).params();
      assertThat(bound).as("walk bound").containsOnlyOnce(OFFSET);
      assertThat(bound.contains(AFTER_KEY)).isEqualTo(after);
      assertThat(bound.contains(UP_TO_KEY)).isEqualTo(upTo);
      assertThat(sql.walkDelete(after, upTo).params().stream().filter(p -> p != LIMIT).toList())
          .as("walk delete")
          .isEqualTo(bound.stream().filter(p -> p != OFFSET).toList());
      assertThat(sql.walkDelete(after, upTo).text()).contains("expires_at <=");
      assertThat(sql.walkBound(after, upTo).text())
          .contains("ORDER BY scope_id, idem_key")
          .doesNotContain(":");
    }
    for (Sql s :
        List.of(
            sql.claim(),
            sql.read(),
            sql.takeOver(),
            sql.complete(),
            sql.release(),
            sql.renew(),
            sql.delete(),
            sql.purgeBatch())) {
      assertThat(s.text()).contains("app.idem ").doesNotContain(":").doesNotContain("status");
    }
    assertThat(sql.insertScope().text()).contains("app.idem_scope");
    assertThat(sql.purgeScopes().text()).contains("app.idem_scope").contains("app.idem r");
    assertThat(sql.readFormat().text()).contains("app.idem_meta");
  }

  @Test
  void anUnknownParameterNameFailsWhenTheStatementIsBuilt() {
    assertThatThrownBy(() -> Sql.of("SELECT 1 FROM t WHERE a = :scope AND b = :nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NOPE");
  }

  /** How each dialect's claim answers: a row, a code, or a row count and duplicate-key errors. */
  @Test
  void eachDialectTellsAWonInsertFromATakenKeyByItsOwnRule() {
    assertThat(SqlStatements.of(JdbcDialect.POSTGRESQL, "t").claimAnswer())
        .isEqualTo(ClaimAnswer.ROW);
    assertThat(SqlStatements.of(JdbcDialect.MARIADB, "t").claimAnswer()).isEqualTo(ClaimAnswer.ROW);
    assertThat(SqlStatements.of(JdbcDialect.MARIADB, "t").claim().text()).contains("RETURNING");
    assertThat(SqlStatements.of(JdbcDialect.H2, "t").claimAnswer()).isEqualTo(ClaimAnswer.COUNT);

    SqlStatements mysql = SqlStatements.of(JdbcDialect.MYSQL, "t");
    assertThat(mysql.claimAnswer()).isEqualTo(ClaimAnswer.CODE);
    assertThat(mysql.claim().text()).doesNotContain("RETURNING");
    assertThat(mysql.inserted(1, MySqlStatements.INSERTED_CODE)).isEqualTo(Inserted.WON);
    assertThat(mysql.inserted(1, MySqlStatements.EXISTS_CODE))
        .as("found rows")
        .isEqualTo(Inserted.TAKEN);
    assertThat(mysql.inserted(0, MySqlStatements.EXISTS_CODE))
        .as("affected rows")
        .isEqualTo(Inserted.TAKEN);
    assertThat(mysql.inserted(0, -1)).as("no code, nothing inserted").isEqualTo(Inserted.TAKEN);
    assertThat(mysql.inserted(1, -1)).as("no code").isEqualTo(Inserted.UNKNOWN);
    assertThat(mysql.inserted(1, 7)).as("an insert id").isEqualTo(Inserted.UNKNOWN);
  }

  /** A duplicate key is SQLState class 23, but not the state of another constraint's violation. */
  @ParameterizedTest
  @EnumSource(JdbcDialect.class)
  void aDuplicateKeyIsClassTwentyThreeButNoOtherConstraint(JdbcDialect dialect) {
    SqlStatements sql = SqlStatements.of(dialect, "t");
    assertThat(sql.isDuplicateKey(new SQLException("dup", "23505"))).isTrue();
    assertThat(sql.isDuplicateKey(new SQLException("Duplicate entry", "23000", 1062))).isTrue();
    assertThat(sql.isDuplicateKey(new SQLException("null", "23502"))).as("not null").isFalse();
    assertThat(sql.isDuplicateKey(new SQLException("fk", "23503"))).as("foreign key").isFalse();
    assertThat(sql.isDuplicateKey(new SQLException("check", "23514"))).as("check").isFalse();
    assertThat(sql.isDuplicateKey(new SQLException("syntax", "42000"))).isFalse();
    assertThat(sql.isDuplicateKey(new SQLException("no state"))).isFalse();
  }

  /** What an outcome too large for the database looks like, by the SQLState and the dialect. */
  @Test
  void eachDialectReadsAnOutcomeTooLargeItsOwnWay() {
    SqlStatements postgres = SqlStatements.of(JdbcDialect.POSTGRESQL, "t");
    assertThat(postgres.refusal(new SQLException("too long", "22001"), 0, 0))
        .isEqualTo(Refusal.COLUMN_TOO_SMALL);
    assertThat(postgres.refusal(new SQLException("limit", "54000"), 0, 0))
        .isEqualTo(Refusal.TOO_LARGE);
    assertThat(postgres.refusal(new SQLException("max_allowed_packet", "08006"), 10, 5))
        .as("not a MySQL sign on PostgreSQL")
        .isEqualTo(Refusal.NONE);
    assertThat(postgres.packetLimitQuery()).isNull();

    for (JdbcDialect dialect : List.of(JdbcDialect.MARIADB, JdbcDialect.MYSQL)) {
      SqlStatements mysql = SqlStatements.of(dialect, "t");
      assertThat(mysql.refusal(new SQLException("Data too long", "22001", 1406), 0, 0))
          .isEqualTo(Refusal.COLUMN_TOO_SMALL);
      assertThat(mysql.refusal(new SQLException("Data too long", "01000", 1406), 0, 0))
          .as("strict mode off")
          .isEqualTo(Refusal.COLUMN_TOO_SMALL);
      assertThat(mysql.refusal(new SQLException("Got a packet bigger", "08S01", 1153), 0, 0))
          .isEqualTo(Refusal.TOO_LARGE);
      assertThat(
              mysql.refusal(
                  new SQLTransientConnectionException("query size is >= to max_allowed_packet"),
                  0,
                  0))
          .isEqualTo(Refusal.TOO_LARGE);
      assertThat(mysql.refusal(new SQLException("connection reset", "08000"), 2000, 1000))
          .as("a dropped connection while sending a statement past the limit")
          .isEqualTo(Refusal.TOO_LARGE);
      assertThat(mysql.refusal(new SQLException("connection reset", "08000"), 500, 1000))
          .as("a dropped connection while sending a statement within the limit")
          .isEqualTo(Refusal.NONE);
      assertThat(mysql.packetLimitQuery()).contains("max_allowed_packet");
      assertThat(mysql.tooLargeAdvice(2000, 1000)).contains("1000 bytes").contains("2000 bytes");
    }
  }

  private static void assertBinds(Sql sql, Sql.Param... params) {
    assertThat(sql.params()).as(sql.text()).containsExactly(params);
    assertThat(sql.text().chars().filter(ch -> ch == '?').count())
        .as(sql.text())
        .isEqualTo(params.length);
  }
}
