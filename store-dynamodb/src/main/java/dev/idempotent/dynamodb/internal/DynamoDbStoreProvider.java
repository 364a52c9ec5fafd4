package dev.idempotent.dynamodb.internal;

import dev.idempotent.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.StoreSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.regions.Region;

/**
 * Builds a {@link DynamoDbIdempotencyStore} from {@code idempotent.dynamodb.*} settings ({@code
 * idempotent.store=dynamodb}). The store owns the clients it makes and closes them on close;
 * credentials come from the SDK's default chain (environment, system properties, profile, the
 * instance's or task's role), never from these settings.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><td>{@code idempotent.dynamodb.table}</td><td>the table, default {@code idempotency}</td></tr>
 *   <tr><td>{@code idempotent.dynamodb.region}</td><td>AWS region, e.g. {@code eu-west-1}; default:
 *       the SDK's region lookup</td></tr>
 *   <tr><td>{@code idempotent.dynamodb.endpoint}</td><td>another endpoint ({@code http://host:port}
 *       of a local DynamoDB); default AWS's</td></tr>
 *   <tr><td>{@code idempotent.dynamodb.create-table}</td><td>{@code true} to create a missing table
 *       (on-demand billing, TTL on); default {@code false}</td></tr>
 *   <tr><td>{@code idempotent.dynamodb.timeout}</td><td>time for each operation, SDK retries
 *       included; default 5s</td></tr>
 *   <tr><td>{@code idempotent.dynamodb.max-clock-skew}</td><td>the largest difference between the
 *       clocks of two hosts using the table; default 1s</td></tr>
 * </table>
 */
public final class DynamoDbStoreProvider implements IdempotencyStoreProvider {
  public static final String TABLE = "idempotent.dynamodb.table";
  public static final String REGION = "idempotent.dynamodb.region";
  public static final String ENDPOINT = "idempotent.dynamodb.endpoint";
  public static final String CREATE_TABLE = "idempotent.dynamodb.create-table";
  public static final String TIMEOUT = "idempotent.dynamodb.timeout";
  public static final String MAX_CLOCK_SKEW = "idempotent.dynamodb.max-clock-skew";

  private static final Logger log = LoggerFactory.getLogger(DynamoDbStoreProvider.class);

  @Override
  public String name() {
    return "dynamodb";
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    DynamoDbIdempotencyStore.Builder builder = DynamoDbIdempotencyStore.builder();
    Optional<String> table = settings.get(TABLE);
    if (table.isPresent()) {
      try {
        builder.table(table.get());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("setting " + TABLE + ": " + e.getMessage(), e);
      }
    }
    settings.get(REGION).ifPresent(r -> builder.region(Region.of(r)));
    Optional<String> endpoint = settings.get(ENDPOINT);
    if (endpoint.isPresent()) {
      builder.endpoint(endpoint(endpoint.get()));
    }
    settings.get(CREATE_TABLE).ifPresent(v -> builder.createTable(bool(v)));
    settings.duration(TIMEOUT).ifPresent(builder::timeout);
    settings
        .get(MAX_CLOCK_SKEW)
        .ifPresent(
            v ->
                builder.maxClockSkew(
                    "0".equals(v) ? Duration.ZERO : settings.duration(MAX_CLOCK_SKEW).get()));
    DynamoDbIdempotencyStore store = builder.build();
    log.info(
        "Idempotency records in the DynamoDB table {}{}",
        store.table(),
        endpoint.map(e -> " at " + e).orElse(""));
    return store;
  }

  private static URI endpoint(String value) {
    try {
      URI uri = new URI(value);
      if (uri.getHost() == null
          || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        throw new URISyntaxException(value, "not http://host:port or https://host:port");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "setting "
              + ENDPOINT
              + " is '"
              + value
              + "': write http://host:port or https://host:port (or leave it unset for AWS)",
          e);
    }
  }

  private static boolean bool(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              "setting " + CREATE_TABLE + " is '" + value + "': write true or false");
    };
  }
}
