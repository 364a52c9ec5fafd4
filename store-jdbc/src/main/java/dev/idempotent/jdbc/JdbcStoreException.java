package dev.idempotent.jdbc;

import dev.idempotent.IdempotencyStoreException;

/**
 * A database error in {@link JdbcIdempotencyStore}. The message names the operation, the redacted
 * key, the table and the JDBC URL (never a password), with the SQLState and the first line of the
 * driver's message. The cause is a copy of the driver's {@link java.sql.SQLException} chain that
 * keeps each exception's {@code java.sql} kind, SQLState, vendor code and stack trace, with every
 * quoted value removed from its message: no bound value (key, outcome) is carried, since drivers
 * quote them (PostgreSQL's {@code Detail: Key (...)=(...)}). Being an {@link
 * IdempotencyStoreException}, its message (which names no whole key) is shown in the executor's
 * messages and log lines, SQLState included.
 */
public final class JdbcStoreException extends IdempotencyStoreException {
  private static final long serialVersionUID = 1L;

  public JdbcStoreException(String message, Throwable cause) {
    super(message, null, null, cause);
  }
}
