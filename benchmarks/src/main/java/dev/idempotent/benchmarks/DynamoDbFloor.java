package dev.idempotent.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The hand-written DynamoDB floor: the least an application could send for an idempotent call,
 * through the same {@link DynamoDbClient} and table as the store. A claim is one conditional {@code
 * PutItem} ({@code attribute_not_exists(pk)}) and, when the key exists, one strongly consistent
 * {@code GetItem}; a completion one {@code UpdateItem} conditional on the owner; a replay one
 * strongly consistent {@code GetItem}. Its outcome is the receipt's fields as text; no fingerprint,
 * no codec, no expiry checks.
 */
final class DynamoDbFloor {
  static final String KEY_PREFIX = "bench-floor:";

  private final DynamoDbClient client;
  private final String table;
  private final String leaseEnd;
  private final String ttlEnd;

  DynamoDbFloor(DynamoDbClient client, String table, Duration lease, Duration ttl) {
    this.client = client;
    this.table = table;
    // fixed ends: the floor judges no expiry, it only writes the attribute a real one would
    long now = System.currentTimeMillis();
    this.leaseEnd = Long.toString(now + lease.toMillis());
    this.ttlEnd = Long.toString(now + ttl.toMillis());
  }

  /**
   * Claims {@code key} for {@code owner}, runs the body, records the outcome; a taken key is
   * replayed from the item read after the refusal.
   */
  Receipt submit(String key, String owner, long amountCents) {
    AttributeValue pk = AttributeValue.fromS(KEY_PREFIX + key);
    try {
      client.putItem(
          b ->
              b.tableName(table)
                  .item(
                      Map.of(
                          "pk", pk,
                          "owner", AttributeValue.fromS(owner),
                          "expiresAt", AttributeValue.fromN(leaseEnd)))
                  .conditionExpression("attribute_not_exists(pk)"));
    } catch (ConditionalCheckFailedException taken) {
      return decode(read(pk), key);
    }
    Receipt receipt = Receipt.issue(key, amountCents);
    client.updateItem(
        b ->
            b.tableName(table)
                .key(Map.of("pk", pk))
                .updateExpression("SET outcome = :o, expiresAt = :e")
                .conditionExpression("#own = :owner")
                .expressionAttributeNames(Map.of("#own", "owner"))
                .expressionAttributeValues(
                    Map.of(
                        ":o", AttributeValue.fromB(SdkBytes.fromByteArray(encode(receipt))),
                        ":e", AttributeValue.fromN(ttlEnd),
                        ":owner", AttributeValue.fromS(owner))));
    return receipt;
  }

  /** The recorded receipt of a completed key: one strongly consistent {@code GetItem}. */
  Receipt replay(String key) {
    return decode(read(AttributeValue.fromS(KEY_PREFIX + key)), key);
  }

  private Map<String, AttributeValue> read(AttributeValue pk) {
    return client
        .getItem(b -> b.tableName(table).key(Map.of("pk", pk)).consistentRead(true))
        .item();
  }

  private static byte[] encode(Receipt receipt) {
    return (receipt.amountCents() + ":" + receipt.currency() + ":" + receipt.orderId())
        .getBytes(StandardCharsets.UTF_8);
  }

  private static Receipt decode(Map<String, AttributeValue> item, String key) {
    AttributeValue outcome = item == null ? null : item.get("outcome");
    if (outcome == null) {
      throw new IllegalStateException("no completed record of " + key);
    }
    String text = outcome.b().asUtf8String();
    int first = text.indexOf(':');
    int second = text.indexOf(':', first + 1);
    return new Receipt(
        text.substring(second + 1),
        Long.parseLong(text, 0, first, 10),
        text.substring(first + 1, second));
  }
}
