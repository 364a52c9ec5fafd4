package dev.idempotent.benchmarks;

import java.time.Duration;
import java.util.Map;

/** Durations, sizes and service addresses shared by the woven side and the baselines. */
final class BenchmarkSettings {
  /** The lease of a claim; the library's default, used by the baselines too. */
  static final Duration LEASE = Duration.ofSeconds(30);

  /** The ttl of {@link OrderService#submit}, used by the fresh-key baselines too. */
  static final Duration FRESH_TTL = Duration.ofSeconds(30);

  /** The ttl of {@link OrderService#submitRetained}, used by the replay baselines too. */
  static final Duration RETAINED_TTL = Duration.ofHours(1);

  /** The amount every benchmarked call charges. */
  static final long AMOUNT = 1299;

  /** The number of recorded keys a replay benchmark cycles through (a power of two). */
  static final int REPLAY_KEYS = 1024;

  static final String REDIS_URL_VARIABLE = "IDEMPOTENT_REDIS_URL";
  static final String POSTGRES_URL_VARIABLE = "IDEMPOTENT_POSTGRES_URL";
  static final String MARIADB_URL_VARIABLE = "IDEMPOTENT_MARIADB_URL";
  static final String DYNAMODB_URL_VARIABLE = "IDEMPOTENT_DYNAMODB_URL";
  static final String NATS_URL_VARIABLE = "IDEMPOTENT_JETSTREAM_URL";

  private static final Map<String, String> DEFAULTS =
      Map.of(
          REDIS_URL_VARIABLE, "redis://127.0.0.1:6379",
          POSTGRES_URL_VARIABLE, "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
          MARIADB_URL_VARIABLE, "jdbc:mariadb://127.0.0.1:3306/test?user=root",
          DYNAMODB_URL_VARIABLE, "http://127.0.0.1:4567",
          NATS_URL_VARIABLE, "nats://127.0.0.1:4222");

  private BenchmarkSettings() {}

  /** The value of an address variable, or its local default. */
  static String address(String variable) {
    String value = System.getenv(variable);
    return value == null || value.isBlank() ? DEFAULTS.get(variable) : value.strip();
  }

  /** The JDBC URL of a {@code database} parameter value. */
  static String jdbcUrl(String database) {
    return switch (database) {
      case "postgresql" -> address(POSTGRES_URL_VARIABLE);
      case "mariadb" -> address(MARIADB_URL_VARIABLE);
      default ->
          throw new IllegalArgumentException(
              "unknown database '" + database + "': use postgresql or mariadb");
    };
  }

  /** The variable that names the URL of a {@code database} parameter value. */
  static String jdbcVariable(String database) {
    return "postgresql".equals(database) ? POSTGRES_URL_VARIABLE : MARIADB_URL_VARIABLE;
  }
}
