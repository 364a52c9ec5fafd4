/**
 * An idempotency store in a relational database through plain JDBC: {@link
 * dev.idempotent.jdbc.JdbcIdempotencyStore} on PostgreSQL, MySQL/MariaDB and H2 ({@link
 * dev.idempotent.jdbc.JdbcDialect}) over a {@code DataSource}, optionally recording completions on
 * the caller's own transaction ({@link dev.idempotent.jdbc.ConnectionProvider}). With this module
 * and HikariCP on the class path, {@code idempotent.store=jdbc} and {@code idempotent.jdbc.url}
 * configure it with no code.
 */
package dev.idempotent.jdbc;
