package dev.idempotent.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.nats.NatsIdempotencyStore;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Where a store or a ledger lives, written as one string a worker gets on its command line: {@code
 * redis://host:port} (standalone Redis), {@code cluster:redis://h:p,redis://h:p,...} (Redis Cluster
 * seeds), a JDBC URL ({@code jdbc:postgresql://...}, {@code jdbc:mariadb://...}) or {@code
 * dynamodb:http://host:port} (a local DynamoDB endpoint such as dynalite) or {@code
 * nats://host:port} (a NATS JetStream key-value bucket; its ledger is the Redis of {@code
 * IDEMPOTENT_REDIS_URL}, by default the local one).
 *
 * @param spec the string itself
 */
public record BackendSpec(String spec) {
  /**
   * The table of idempotency records the tests use, apart from the default one other modules test.
   */
  public static final String RECORD_TABLE = "idem_it_record";

  /** The DynamoDB table of idempotency records the tests use. */
  public static final String DYNAMODB_RECORD_TABLE = "idem-it-record";

  /** Store keys of Redis records start with this. */
  public static final String KEY_PREFIX = "idem-it:";

  public BackendSpec {
    if (spec == null
        || !(spec.startsWith("redis://")
            || spec.startsWith("cluster:redis://")
            || spec.startsWith("jdbc:")
            || spec.startsWith(DYNAMODB)
            || spec.startsWith("nats://"))) {
      throw new IllegalArgumentException(
          "backend '"
              + spec
              + "': write redis://host:port, "
              + "cluster:redis://host:port,redis://host:port,..., a jdbc: URL,"
              + " dynamodb:http://host:port or nats://host:port");
    }
  }

  private static final String DYNAMODB = "dynamodb:";

  public boolean isDynamoDb() {
    return spec.startsWith(DYNAMODB);
  }

  /**
   * A DynamoDB client of this spec's endpoint, with the fixed region and dummy credentials a local
   * endpoint accepts.
   */
  public DynamoDbClient dynamoDb() {
    return DynamoDbClient.builder()
        .endpointOverride(URI.create(spec.substring(DYNAMODB.length())))
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .build();
  }

  public boolean isJdbc() {
    return spec.startsWith("jdbc:");
  }

  /**
   * A store with the given command/query timeout; {@code applicationName} tags PostgreSQL
   * connections.
   */
  public IdempotencyStore openStore(String applicationName, Duration timeout, boolean createTable) {
    return openStore(applicationName, timeout, createTable, 1, Duration.ofMillis(100));
  }

  /**
   * {@link #openStore(String, Duration, boolean)}, with a Redis client that tries to send a command
   * {@code retries} more times, {@code retryInterval} apart, before it gives up (a command that a
   * starved client could not even write to its connection meanwhile fails the call).
   */
  public IdempotencyStore openStore(
      String applicationName,
      Duration timeout,
      boolean createTable,
      int retries,
      Duration retryInterval) {
    return openStore(applicationName, timeout, createTable, retries, retryInterval, null);
  }

  /**
   * {@link #openStore(String, Duration, boolean)} with the records under {@code records}: the
   * record table of a JDBC store ({@code records}, {@code records_scope}, {@code records_meta}),
   * the key prefix of a Redis store; so that a test can drop a run's records as a whole.
   */
  public IdempotencyStore openStore(
      String applicationName, Duration timeout, boolean createTable, String records) {
    if (records == null || records.isBlank()) {
      throw new IllegalArgumentException(
          "records must name a JDBC table or a Redis key prefix, e.g. idem_crash_1 or"
              + " idem-crash-1:");
    }
    return openStore(applicationName, timeout, createTable, 1, Duration.ofMillis(100), records);
  }

  private IdempotencyStore openStore(
      String applicationName,
      Duration timeout,
      boolean createTable,
      int retries,
      Duration retryInterval,
      String records) {
    if (isJdbc()) {
      HikariDataSource pool = pool(applicationName, timeout, 8);
      try {
        return JdbcIdempotencyStore.builder(pool)
            .table(records == null ? RECORD_TABLE : records)
            .queryTimeout(timeout)
            .createTable(createTable)
            .closing(pool)
            .build();
      } catch (RuntimeException e) {
        pool.close();
        throw e;
      }
    }
    if (isDynamoDb()) {
      // every worker runs on this host, on one clock: a short tolerated skew keeps takeovers prompt
      return DynamoDbIdempotencyStore.builder()
          .endpoint(URI.create(spec.substring(DYNAMODB.length())))
          .region(Region.US_EAST_1)
          .credentials(
              StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
          .table(
              records == null ? DYNAMODB_RECORD_TABLE : records.replaceAll("[^a-zA-Z0-9_.-]", "-"))
          .createTable(createTable)
          .timeout(timeout)
          .maxClockSkew(Duration.ofMillis(100))
          .build();
    }
    if (isNats()) {
      return natsStore(timeout, records);
    }
    RedissonClient client = redisson(timeout, 16, retries, retryInterval);
    try {
      return RedissonIdempotencyStore.builder(client)
          .keyPrefix(records == null ? KEY_PREFIX : records)
          .shutdownClientOnClose(true)
          .build();
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
  }

  public boolean isNats() {
    return spec.startsWith("nats://");
  }

  /** The NATS store: the bucket {@code idem-it}, or one named after {@code records}. */
  private IdempotencyStore natsStore(Duration timeout, String records) {
    String bucket =
        records == null
            ? "idem-it"
            : records.replaceAll("[^A-Za-z0-9_-]", "-").replaceAll("-+$", "");
    io.nats.client.Connection connection;
    try {
      connection =
          io.nats.client.Nats.connect(
              new io.nats.client.Options.Builder()
                  .server(spec)
                  .connectionTimeout(Duration.ofSeconds(10))
                  .build());
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot connect to " + spec, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    try {
      return NatsIdempotencyStore.builder(connection)
          .bucket(bucket)
          .timeout(timeout)
          .closeConnectionOnClose(true)
          .build();
    } catch (RuntimeException e) {
      try {
        connection.close();
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
      throw e;
    }
  }

  /** A ledger on its own connections. */
  public Ledger openLedger(String applicationName) {
    if (isNats()) {
      String redis = System.getenv("IDEMPOTENT_REDIS_URL");
      return new BackendSpec(redis == null || redis.isBlank() ? "redis://127.0.0.1:6379" : redis)
          .openLedger(applicationName);
    }
    if (isJdbc()) {
      HikariDataSource pool = pool(applicationName + "-ledger", Duration.ofSeconds(10), 6);
      return new JdbcLedger(pool, pool);
    }
    if (isDynamoDb()) {
      return new DynamoDbLedger(dynamoDb());
    }
    // connections made up front and three retries: a ledger hiccup would count as a failed call,
    // not a store fault
    return new RedisLedger(redisson(Duration.ofSeconds(10), 12, 3));
  }

  /**
   * A Redisson client for this (Redis) spec, with {@code timeout} for connects and commands, {@code
   * minIdle} connections per master made at start and {@code retries} retries 100 ms apart.
   */
  public RedissonClient redisson(Duration timeout, int minIdle, int retries) {
    return redisson(timeout, minIdle, retries, Duration.ofMillis(100));
  }

  private RedissonClient redisson(
      Duration timeout, int minIdle, int retries, Duration retryInterval) {
    int ms = (int) timeout.toMillis();
    int interval = (int) retryInterval.toMillis();
    Config config = new Config();
    config.setThreads(4);
    config.setNettyThreads(8);
    if (spec.startsWith("cluster:")) {
      List<String> nodes = Arrays.asList(spec.substring("cluster:".length()).split(","));
      config
          .useClusterServers()
          .addNodeAddress(nodes.toArray(String[]::new))
          .setTimeout(ms)
          .setConnectTimeout(ms)
          .setRetryAttempts(retries)
          .setRetryInterval(interval)
          .setMasterConnectionMinimumIdleSize(minIdle)
          .setMasterConnectionPoolSize(24)
          .setSlaveConnectionMinimumIdleSize(0)
          .setSubscriptionConnectionMinimumIdleSize(1);
    } else if (spec.startsWith("redis://")) {
      config
          .useSingleServer()
          .setAddress(spec)
          .setTimeout(ms)
          .setConnectTimeout(ms)
          .setRetryAttempts(retries)
          .setRetryInterval(interval)
          .setConnectionMinimumIdleSize(minIdle)
          .setConnectionPoolSize(24)
          .setSubscriptionConnectionMinimumIdleSize(1);
    } else {
      throw new IllegalStateException("not a Redis backend: " + spec);
    }
    return Redisson.create(config);
  }

  private HikariDataSource pool(String applicationName, Duration timeout, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(spec);
    config.setPoolName(applicationName);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(Math.max(250, timeout.toMillis()));
    config.setValidationTimeout(Math.max(250, Math.min(timeout.toMillis(), 1000)));
    config.setInitializationFailTimeout(10_000);
    if (spec.startsWith("jdbc:postgresql:")) {
      config.addDataSourceProperty("ApplicationName", applicationName);
      config.addDataSourceProperty(
          "socketTimeout", Long.toString(Math.max(1, timeout.toSeconds() * 2)));
    }
    return new HikariDataSource(config);
  }

  @Override
  public String toString() {
    return spec.replaceAll("(?i)(password=)[^&]*", "$1***");
  }
}
