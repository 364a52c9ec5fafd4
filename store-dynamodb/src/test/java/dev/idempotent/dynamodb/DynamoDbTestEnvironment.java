package dev.idempotent.dynamodb;

import dev.idempotent.tck.TestBackends;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Where the tests find DynamoDB: {@code IDEMPOTENT_DYNAMODB_URL}, else dynalite on its default port
 * 127.0.0.1:4567 when it answers (started by {@code .ci/run} from {@code store-dynamodb/dynalite}),
 * else the test fails (when {@code CI=true}) or is skipped with a {@code SKIPPED} console line (see
 * {@link TestBackends}). Credentials and region are fixed dummies: a local endpoint checks neither.
 */
public final class DynamoDbTestEnvironment {
  public static final String URL_VARIABLE = "IDEMPOTENT_DYNAMODB_URL";
  static final int LOCAL_PORT = 4567;
  static final String LOCAL_URL = "http://127.0.0.1:" + LOCAL_PORT;

  /** The skew the tests' stores tolerate: short, so that expiry checks wait little. */
  public static final Duration TEST_CLOCK_SKEW = Duration.ofMillis(100);

  /** Longer than the default: dynalite on a busy test machine answers slower than DynamoDB. */
  public static final Duration TEST_TIMEOUT = Duration.ofSeconds(10);

  private static DynamoDbClient client;
  private static DynamoDbAsyncClient asyncClient;

  private DynamoDbTestEnvironment() {}

  /** The endpoint, or a failed (CI) or skipped test. */
  public static synchronized URI endpoint() {
    Optional<String> url = TestBackends.configuredOrLocal(URL_VARIABLE, LOCAL_URL, LOCAL_PORT);
    if (url.isEmpty()) {
      TestBackends.unavailable(
          URL_VARIABLE + " is not set and nothing answers on 127.0.0.1:" + LOCAL_PORT,
          "run .ci/run, or start dynalite (npm ci --prefix store-dynamodb/dynalite; node --require"
              + " ./store-dynamodb/dynalite/survive-aborted-requests.js"
              + " store-dynamodb/dynalite/node_modules/dynalite/cli.js --host 127.0.0.1 --port "
              + LOCAL_PORT
              + "), or set "
              + URL_VARIABLE
              + "=http://host:port");
    }
    return URI.create(url.get());
  }

  /** A blocking client of the test endpoint, shared by the tests of a JVM. */
  public static synchronized DynamoDbClient client() {
    if (client == null) {
      client =
          DynamoDbClient.builder()
              .endpointOverride(endpoint())
              .region(Region.US_EAST_1)
              .credentialsProvider(credentials())
              .httpClientBuilder(
                  software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
              .build();
    }
    return client;
  }

  /** A non-blocking client of the test endpoint, shared by the tests of a JVM. */
  public static synchronized DynamoDbAsyncClient asyncClient() {
    if (asyncClient == null) {
      asyncClient =
          DynamoDbAsyncClient.builder()
              .endpointOverride(endpoint())
              .region(Region.US_EAST_1)
              .credentialsProvider(credentials())
              .httpClientBuilder(
                  software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient.builder()
                      .maxConcurrency(256))
              .build();
    }
    return asyncClient;
  }

  public static StaticCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"));
  }

  /** A store on the shared clients and {@code table}, creating the table when missing. */
  public static DynamoDbIdempotencyStore.Builder storeOn(String table) {
    return DynamoDbIdempotencyStore.builder()
        .clients(client(), asyncClient())
        .table(table)
        .createTable(true)
        .maxClockSkew(TEST_CLOCK_SKEW)
        .timeout(TEST_TIMEOUT);
  }

  /** Deletes {@code table} once it is active (a table being created cannot be deleted). */
  public static void deleteTable(String table) throws InterruptedException {
    for (int i = 0; i < 300; i++) {
      if (client().describeTable(b -> b.tableName(table)).table().tableStatus()
          == software.amazon.awssdk.services.dynamodb.model.TableStatus.ACTIVE) {
        break;
      }
      Thread.sleep(100);
    }
    client().deleteTable(b -> b.tableName(table));
  }

  /** A table name no other run uses. */
  public static String freshTable(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
