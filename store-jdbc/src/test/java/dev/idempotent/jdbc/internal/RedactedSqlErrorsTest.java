package dev.idempotent.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.RecordKey;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLTimeoutException;
import org.junit.jupiter.api.Test;

class RedactedSqlErrorsTest {
  private static final RecordKey KEY = RecordKey.of("payments", "4111111111111111");

  @Test
  void keepsTheFirstLineWithoutQuotedValues() {
    assertThat(
            RedactedSqlErrors.message(
                "ERROR: duplicate key value violates unique constraint \"pk\"\n"
                    + "  Detail: Key (scope, idem_key)=(payments, 4111111111111111) already"
                    + " exists.",
                KEY))
        .isEqualTo("ERROR: duplicate key value violates unique constraint \"…\"");
    assertThat(
            RedactedSqlErrors.message(
                "(conn=7) Duplicate entry 'payments-4111111111' for key 'PRIMARY'", KEY))
        .isEqualTo("(conn=7) Duplicate entry '…' for key '…'");
    assertThat(
            RedactedSqlErrors.message(
                "Value too long for column \"IDEM_KEY\": \"'4111111111111111' (16)\"", KEY))
        .isEqualTo("Value too long for column \"…\": \"…\"");
  }

  @Test
  void handlesEscapesDoubledQuotesApostrophesAndUnclosedValues() {
    assertThat(RedactedSqlErrors.withoutValues("entry 'a\\'b' and 'c''d' end"))
        .isEqualTo("entry '…' and '…' end");
    assertThat(RedactedSqlErrors.withoutValues("Can't connect: 'abc"))
        .isEqualTo("Can't connect: '…");
    assertThat(RedactedSqlErrors.withoutValues("Key (idem_key)=(4111) exists"))
        .isEqualTo("Key (idem_key)=(…) exists");
  }

  @Test
  void replacesTheKeyWhereverItIsLeftAndMasksPasswords() {
    assertThat(
            RedactedSqlErrors.message(
                "rejected 4111111111111111 at jdbc:x://h/db?password=secret", KEY))
        .isEqualTo("rejected " + KEY.redactedKey() + " at jdbc:x://h/db?password=****");
  }

  @Test
  void copiesTheWholeChainWithKindStateCodeAndStackTrace() {
    SQLException original =
        new SQLIntegrityConstraintViolationException(
            "Duplicate entry '4111111111111111' for key 'PRIMARY'", "23000", 1062);
    original.initCause(new IOException("sent 4111111111111111"));
    original.setNextException(
        new SQLTimeoutException("timeout for '4111111111111111'", "HYT00", 0));
    original.addSuppressed(new SQLException("rollback of '4111111111111111' failed", "08003"));

    SQLException copy = RedactedSqlErrors.copyOf(original, KEY);

    assertThat((Throwable) copy).isInstanceOf(SQLIntegrityConstraintViolationException.class);
    assertThat(copy.getSQLState()).isEqualTo("23000");
    assertThat(copy.getErrorCode()).isEqualTo(1062);
    assertThat(copy.getStackTrace()).isEqualTo(original.getStackTrace());
    assertThat(copy.getMessage())
        .startsWith("Duplicate entry '…' for key '…'")
        .contains(SQLIntegrityConstraintViolationException.class.getName());
    assertThat(copy.getCause())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining(IOException.class.getName())
        .hasMessageContaining(KEY.redactedKey());
    assertThat((Throwable) copy.getNextException()).isInstanceOf(SQLTimeoutException.class);
    assertThat(copy.getNextException().getSQLState()).isEqualTo("HYT00");
    assertThat(copy.getSuppressed())
        .singleElement()
        .satisfies(s -> assertThat(s).hasMessageStartingWith("rollback of '…' failed"));
    for (Throwable t :
        new Throwable[] {copy, copy.getCause(), copy.getNextException(), copy.getSuppressed()[0]}) {
      assertThat(t.getMessage()).doesNotContain("4111111111111111");
    }
  }
}
