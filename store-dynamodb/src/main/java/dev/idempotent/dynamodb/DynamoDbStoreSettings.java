package dev.idempotent.dynamodb;

import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The settings of the DynamoDB store ({@code idempotent.dynamodb.*}), each defined once. */
public final class DynamoDbStoreSettings {
  private static final Pattern TABLE_NAME = Pattern.compile("[a-zA-Z0-9_.-]{3,255}");

  public static final Setting<String> TABLE =
      Setting.text(
              "idempotent.dynamodb.table",
              DynamoDbIdempotencyStore.DEFAULT_TABLE,
              "The table of the records.")
          .requiring(
              t -> TABLE_NAME.matcher(t).matches(),
              "is not a DynamoDB table name: write 3 to 255 of a-z, A-Z, 0-9, '_', '-', '.'");

  public static final Setting<String> REGION =
      Setting.text(
          "idempotent.dynamodb.region",
          null,
          "The AWS region of the store's own clients, such as eu-west-1; unset: the SDK's region"
              + " lookup.");

  public static final Setting<String> ENDPOINT =
      Setting.text(
              "idempotent.dynamodb.endpoint",
              null,
              "Another endpoint for the store's own clients, http://host:port of a local DynamoDB;"
                  + " unset: AWS's.")
          .requiring(
              DynamoDbStoreSettings::isHttpUri, "is not http://host:port or https://host:port");

  public static final Setting<Boolean> CREATE_TABLE =
      Setting.flag(
          "idempotent.dynamodb.create-table",
          false,
          "Create a missing table on first use (on-demand billing, TTL on); false: a missing"
              + " table is reported.");

  public static final Setting<Duration> TIMEOUT =
      Setting.duration(
          "idempotent.dynamodb.timeout",
          DynamoDbIdempotencyStore.DEFAULT_TIMEOUT,
          "How long each operation may take, SDK retries included.");

  public static final Setting<Duration> MAX_CLOCK_SKEW =
      Setting.duration(
          "idempotent.dynamodb.max-clock-skew",
          DynamoDbIdempotencyStore.DEFAULT_MAX_CLOCK_SKEW,
          "The largest difference between the clocks of any two hosts using the table; a claim is"
              + " taken over only once its lease ended this long ago.");

  /** Every setting of the DynamoDB store. */
  public static final List<Setting<?>> ALL =
      List.of(TABLE, REGION, ENDPOINT, CREATE_TABLE, TIMEOUT, MAX_CLOCK_SKEW);

  private DynamoDbStoreSettings() {}

  /** A builder of a store on the application's clients, with the settings of {@code settings}. */
  public static DynamoDbIdempotencyStore.Builder builder(
      DynamoDbClient client, DynamoDbAsyncClient asyncClient, StoreSettings settings) {
    return common(settings).clients(client, asyncClient);
  }

  /**
   * A builder of a store on clients of its own, made from the region and endpoint of {@code
   * settings}, with the SDK's default credentials.
   */
  public static DynamoDbIdempotencyStore.Builder builder(StoreSettings settings) {
    DynamoDbIdempotencyStore.Builder builder = common(settings);
    String region = settings.value(REGION);
    if (region != null) {
      builder.region(Region.of(region));
    }
    String endpoint = settings.value(ENDPOINT);
    if (endpoint != null) {
      builder.endpoint(URI.create(endpoint));
    }
    return builder;
  }

  private static DynamoDbIdempotencyStore.Builder common(StoreSettings settings) {
    return DynamoDbIdempotencyStore.builder()
        .table(settings.value(TABLE))
        .createTable(settings.value(CREATE_TABLE))
        .timeout(settings.value(TIMEOUT))
        .maxClockSkew(settings.value(MAX_CLOCK_SKEW));
  }

  private static boolean isHttpUri(String value) {
    try {
      URI uri = new URI(value);
      return uri.getHost() != null
          && ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()));
    } catch (java.net.URISyntaxException e) {
      return false;
    }
  }
}
