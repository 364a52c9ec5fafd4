/** The idempotency store on PostgreSQL, MySQL/MariaDB and H2 through plain JDBC. */
module dev.idempotent.jdbc {
  requires transitive dev.idempotent.core;
  requires transitive java.sql;
  requires static com.zaxxer.hikari;
  requires org.slf4j;

  exports dev.idempotent.jdbc;

  provides dev.idempotent.spi.IdempotencyStoreProvider with
      dev.idempotent.jdbc.internal.JdbcStoreProvider;
}
