package dev.idempotent.jdbc;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.jdbc.internal.JdbcUrls;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * The {@code idempotent.jdbc.*} settings, each defined once, and how they make a store: {@link
 * #builder} applies the store's own settings ({@link #TABLE}, {@link #CREATE_TABLE}, {@link
 * #QUERY_TIMEOUT}, {@link #PURGE_EVERY}) to a {@link JdbcIdempotencyStore.Builder}, for a pool
 * opened from {@link #URL} (without Spring, {@code idempotent.store=jdbc}) and for the
 * application's {@code DataSource} alike.
 */
public final class JdbcStoreSettings {
  /** Rows deleted per statement by the purge of {@link #PURGE_EVERY}. */
  public static final int PURGE_BATCH_SIZE = 1000;

  public static final Setting<String> URL =
      Setting.text(
              "idempotent.jdbc.url",
              null,
              "JDBC URL of a database of its own for the store; unset: the application's"
                  + " DataSource.")
          .requiring(
              u -> u.startsWith("jdbc:"),
              "is not a JDBC URL such as jdbc:postgresql://host:5432/db")
          .shownAs(JdbcUrls::withoutPassword);

  public static final Setting<String> USERNAME =
      Setting.text("idempotent.jdbc.username", null, "User name for url.");

  public static final Setting<String> PASSWORD =
      Setting.text("idempotent.jdbc.password", null, "Password for url.").secret();

  public static final Setting<String> TABLE =
      Setting.text(
          "idempotent.jdbc.table", JdbcIdempotencyStore.DEFAULT_TABLE, "Table of the records.");

  public static final Setting<Boolean> CREATE_TABLE =
      Setting.flag(
          "idempotent.jdbc.create-table", false, "Create the table at start-up if it is missing.");

  public static final Setting<Integer> POOL_SIZE =
      Setting.integer(
          "idempotent.jdbc.pool-size",
          10,
          1,
          1000,
          "Connections of the store's own pool, with url.");

  public static final Setting<Duration> QUERY_TIMEOUT =
      Setting.duration(
              "idempotent.jdbc.query-timeout", Duration.ofSeconds(5), "Timeout of each statement.")
          .requiring(d -> d.compareTo(Duration.ofHours(1)) <= 0, "is longer than 1h");

  public static final Setting<Duration> PURGE_EVERY =
      Setting.duration(
              "idempotent.jdbc.purge-every",
              null,
              "Delete expired records this often, 1000 rows per statement, pausing between them;"
                  + " unset: never.")
          .requiring(d -> d.compareTo(Duration.ofSeconds(1)) >= 0, "is shorter than 1s");

  /** Every setting of the JDBC store, in the docs' order. */
  public static final List<Setting<?>> ALL =
      List.of(URL, USERNAME, PASSWORD, TABLE, CREATE_TABLE, POOL_SIZE, QUERY_TIMEOUT, PURGE_EVERY);

  private JdbcStoreSettings() {}

  /**
   * A builder of a store on {@code dataSource} with the table, create-table, query-timeout and
   * purge-every of {@code settings}.
   *
   * @throws IdempotencyConfigurationException naming a bad setting
   */
  public static JdbcIdempotencyStore.Builder builder(
      DataSource dataSource, StoreSettings settings) {
    JdbcIdempotencyStore.Builder b =
        JdbcIdempotencyStore.builder(dataSource)
            .table(settings.value(TABLE))
            .createTable(settings.value(CREATE_TABLE))
            .queryTimeout(settings.value(QUERY_TIMEOUT));
    Duration purgeEvery = settings.value(PURGE_EVERY);
    if (purgeEvery != null) {
      b.purgeEvery(purgeEvery, PURGE_BATCH_SIZE);
    }
    return b;
  }
}
