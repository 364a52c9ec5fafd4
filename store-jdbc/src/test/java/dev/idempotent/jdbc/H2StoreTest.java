package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.sql.SQLException;
import java.util.List;
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
   * A store on {@code table}, created afresh by the shipped DDL, then one column changed ({@code
   * ALTER TABLE table ALTER COLUMN change}).
   */
  private JdbcIdempotencyStore storeWithColumn(String table, String change) throws Exception {
    for (String t : List.of(table, table + "_scope", table + "_meta")) {
      execute("DROP TABLE IF EXISTS " + t);
    }
    JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build().close();
    execute("ALTER TABLE " + table + " ALTER COLUMN " + change);
    return track(JdbcIdempotencyStore.builder(dataSource()).table(table).build());
  }

  /**
   * H2's "value too long" message quotes the value (here a key column narrower than the DDL's):
   * never shown.
   */
  @Test
  void aValueTooLongMessageNeverShowsTheKey() throws Exception {
    JdbcIdempotencyStore store =
        storeWithColumn("idem_narrow_test", "idem_key SET DATA TYPE VARCHAR(20)");
    String secret = secretKey();
    Throwable thrown =
        catchThrowable(() -> store.claim(RecordKey.of(scope, secret), "o1", null, LONG));
    assertThat(thrown).isInstanceOf(JdbcStoreException.class).hasMessageContaining("[22001]");
    assertThat(((SQLException) thrown.getCause()).getSQLState()).isEqualTo("22001");
    assertCarriesNo(thrown, secret);
  }

  /**
   * A constraint other than the primary key that the claim's insert breaks (here a NOT NULL
   * fingerprint column) fails the claim with its own SQLState (23502): a duplicate key is a state
   * of class 23 other than those of a not-null, foreign-key or check violation. Taken for a
   * duplicate, it would fail the claim after five attempts with "the record changed".
   */
  @Test
  void anotherConstraintViolationIsNotTakenForADuplicateKey() throws Exception {
    JdbcIdempotencyStore store = storeWithColumn("idem_strict_test", "fingerprint SET NOT NULL");
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
    JdbcIdempotencyStore store =
        storeWithColumn("idem_small_outcome", "outcome SET DATA TYPE VARBINARY(16)");
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
