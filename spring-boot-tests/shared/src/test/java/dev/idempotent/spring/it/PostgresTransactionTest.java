package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * With properties only, the store is the JDBC store on Boot's own {@link DataSource} (no second
 * pool), and the completion of an {@code @Idempotent @Transactional} method commits or rolls back
 * with the business row.
 */
@SpringBootTest
@DirtiesContext
class PostgresTransactionTest {
  @Autowired Orders orders;
  @Autowired TransactionTemplate transactions;
  @Autowired DataSource dataSource;
  @Autowired IdempotencyStore store;

  @BeforeAll
  static void services() {
    TestServices.postgres();
  }

  @Test
  void theStoreIsTheJdbcStoreOnBootsDataSource() {
    assertThat(Idempotency.global().config().defaultStore())
        .isSameAs(store)
        .isInstanceOf(JdbcIdempotencyStore.class);
    assertThat(store.toString()).contains("it_idempotency_record");
  }

  @Test
  void aCommittedTransactionCommitsTheRowAndTheCompletedRecord() {
    String id = UUID.randomUUID().toString();
    int before = orders.executions();
    assertThat(orders.place(id, 7)).isEqualTo(7);
    assertThat(orders.place(id, 7)).isEqualTo(7); // replayed
    assertThat(orders.executions() - before).isEqualTo(1);
    assertThat(orders.rows(id)).isEqualTo(1);
    assertThat(record(id)).map(IdempotencyRecord::status).contains(RecordStatus.COMPLETED);
  }

  @Test
  void aRolledBackTransactionLeavesNoRowAndNoCompletedRecord() {
    String id = UUID.randomUUID().toString();
    // the method itself returns normally (its completion is written), then the caller's transaction
    // rolls back
    transactions.executeWithoutResult(
        status -> {
          orders.place(id, 3);
          status.setRollbackOnly();
        });
    assertThat(orders.rows(id)).isZero();
    assertThat(record(id))
        .map(IdempotencyRecord::status)
        .isNotEqualTo(Optional.of(RecordStatus.COMPLETED));
  }

  @Test
  void aMethodThatFailsRollsBackAndReleasesTheKeySoARetryRuns() {
    String id = UUID.randomUUID().toString();
    assertThatThrownBy(() -> orders.place(id, -1))
        .isInstanceOf(IllegalArgumentException.class); // after the insert
    int before = orders.executions();
    assertThat(orders.place(id, 5)).isEqualTo(5);
    assertThat(orders.executions() - before).isEqualTo(1);
    assertThat(orders.rows(id)).isEqualTo(1);
  }

  private Optional<IdempotencyRecord> record(String id) {
    return store.read(RecordKey.of("orders", id));
  }
}
