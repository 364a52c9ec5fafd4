package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class H2StoreTest extends JdbcStoreChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.h2("checks");
  }

  @Override
  JdbcDialect expectedDialect() {
    return JdbcDialect.H2;
  }

  /**
   * H2's "value too long" message quotes the value (here a key column narrower than the DDL's):
   * never shown.
   */
  @Test
  void aValueTooLongMessageNeverShowsTheKey() throws Exception {
    execute(
        "CREATE TABLE IF NOT EXISTS idem_narrow_test (scope VARCHAR(255) NOT NULL, idem_key"
            + " VARCHAR(20) NOT NULL, status VARCHAR(16) NOT NULL, owner VARCHAR(255) NOT NULL,"
            + " fingerprint VARCHAR(255), outcome BLOB, expires_at TIMESTAMP(6) WITH TIME ZONE NOT"
            + " NULL, created_at TIMESTAMP(6) WITH TIME ZONE NOT NULL, updated_at TIMESTAMP(6) WITH"
            + " TIME ZONE NOT NULL, PRIMARY KEY (scope, idem_key))");
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dataSource()).table("idem_narrow_test").build());
    String secret = secretKey();
    Throwable thrown =
        catchThrowable(() -> store.claim(RecordKey.of(scope, secret), "o1", null, LONG));
    assertThat(thrown).isInstanceOf(JdbcStoreException.class).hasMessageContaining("[22001]");
    assertThat(((SQLException) thrown.getCause()).getSQLState()).isEqualTo("22001");
    assertCarriesNo(thrown, secret);
  }

  /**
   * A constraint other than the primary key that the claim's insert breaks (here a NOT NULL
   * fingerprint column) fails the claim with its own SQLState; only a duplicate key (23505) means
   * "taken". Before, any SQLState of class 23 was taken for a duplicate, and the claim failed after
   * five attempts with "the record changed".
   */
  @Test
  void anotherConstraintViolationIsNotTakenForADuplicateKey() throws Exception {
    execute(
        "CREATE TABLE IF NOT EXISTS idem_strict_test (scope VARCHAR(255) NOT NULL, idem_key"
            + " VARCHAR(255) NOT NULL, status VARCHAR(16) NOT NULL, owner VARCHAR(255) NOT NULL,"
            + " fingerprint VARCHAR(255) NOT NULL, outcome BLOB, expires_at TIMESTAMP(6) WITH TIME"
            + " ZONE NOT NULL, created_at TIMESTAMP(6) WITH TIME ZONE NOT NULL, updated_at"
            + " TIMESTAMP(6) WITH TIME ZONE NOT NULL, PRIMARY KEY (scope, idem_key))");
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dataSource()).table("idem_strict_test").build());
    Throwable thrown =
        catchThrowable(() -> store.claim(RecordKey.of(scope, "k"), "o1", null, LONG));
    assertThat(thrown)
        .isInstanceOf(JdbcStoreException.class)
        .hasMessageContaining("[23502]")
        .hasMessageNotContaining("changed");
    assertThat(store.claim(RecordKey.of(scope, "k"), "o1", "fp", LONG).isAcquired()).isTrue();
  }

  /**
   * An outcome larger than its column takes fails at once as what it is, releasing the key, instead
   * of an error that would be retried until the lease ends.
   */
  @Test
  void anOutcomeLargerThanItsColumnReleasesTheKey() throws Exception {
    execute(
        "CREATE TABLE IF NOT EXISTS idem_small_outcome (scope VARCHAR(255) NOT NULL, idem_key"
            + " VARCHAR(255) NOT NULL, status VARCHAR(16) NOT NULL, owner VARCHAR(255) NOT NULL,"
            + " fingerprint VARCHAR(255), outcome VARBINARY(16), expires_at TIMESTAMP(6) WITH TIME"
            + " ZONE NOT NULL, created_at TIMESTAMP(6) WITH TIME ZONE NOT NULL, updated_at"
            + " TIMESTAMP(6) WITH TIME ZONE NOT NULL, PRIMARY KEY (scope, idem_key))");
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dataSource()).table("idem_small_outcome").build());
    RecordKey key = RecordKey.of(scope, "big");
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
    Throwable thrown = catchThrowable(() -> store.complete(key, "o1", new byte[100], LONG));
    assertThat(thrown)
        .isInstanceOf(OutcomeNotRecordedException.class)
        .hasMessageContaining("100 bytes")
        .hasMessageContaining("outcome column")
        .hasMessageContaining(JdbcDialect.H2.schemaResource());
    assertThat(((OutcomeNotRecordedException) thrown).failsTheCall()).isFalse();
    assertThat(store.complete(key, "o1", new byte[16], LONG)).isTrue();
  }
}
