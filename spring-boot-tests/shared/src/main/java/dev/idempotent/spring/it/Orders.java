package dev.idempotent.spring.it;

import dev.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Writes an order row in the caller's (or its own) Spring-managed transaction, at most once per
 * order id.
 */
@Service
public class Orders {
  public static final String TABLE = "it_orders";
  private final JdbcTemplate jdbc;
  private final AtomicInteger executions = new AtomicInteger();

  public Orders(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
    jdbc.execute(
        "CREATE TABLE IF NOT EXISTS "
            + TABLE
            + " (id VARCHAR(100) PRIMARY KEY, amount INT NOT NULL)");
  }

  @Idempotent(scope = "orders", key = "#orderId")
  @Transactional
  public int place(String orderId, int amount) {
    executions.incrementAndGet();
    jdbc.update("INSERT INTO " + TABLE + " (id, amount) VALUES (?, ?)", orderId, amount);
    if (amount < 0) {
      throw new IllegalArgumentException("amount must not be negative, was " + amount);
    }
    return amount;
  }

  public int executions() {
    return executions.get();
  }

  public int rows(String orderId) {
    Integer n =
        jdbc.queryForObject(
            "SELECT COUNT(*) FROM " + TABLE + " WHERE id = ?", Integer.class, orderId);
    return n == null ? 0 : n;
  }
}
