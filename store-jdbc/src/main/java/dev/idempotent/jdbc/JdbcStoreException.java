package dev.idempotent.jdbc;

/**
 * A database error in {@link JdbcIdempotencyStore}. The message names the operation, the table and the JDBC
 * URL (never a password); the cause is the driver's {@link java.sql.SQLException}.
 */
public final class JdbcStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public JdbcStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
