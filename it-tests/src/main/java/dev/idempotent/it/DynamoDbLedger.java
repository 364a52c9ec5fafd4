package dev.idempotent.it;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * A ledger table in DynamoDB: one item per execution, partition key {@code entry} ({@code
 * <run>/<key>}) and sort key {@code nonce}, counted with a strongly consistent {@code Query}.
 */
public final class DynamoDbLedger implements Ledger {
  public static final String TABLE = "idem-it-ledger";

  private final DynamoDbClient client;

  public DynamoDbLedger(DynamoDbClient client) {
    this.client = client;
  }

  /** Creates the table when missing and waits until it is active; run it before workers start. */
  public void createTable() {
    try {
      client.createTable(
          b ->
              b.tableName(TABLE)
                  .billingMode(BillingMode.PAY_PER_REQUEST)
                  .attributeDefinitions(attribute("entry"), attribute("nonce"))
                  .keySchema(
                      KeySchemaElement.builder()
                          .attributeName("entry")
                          .keyType(KeyType.HASH)
                          .build(),
                      KeySchemaElement.builder()
                          .attributeName("nonce")
                          .keyType(KeyType.RANGE)
                          .build()));
    } catch (ResourceInUseException exists) {
      // created before
    }
    for (int i = 0; i < 600; i++) {
      try {
        if (client.describeTable(b -> b.tableName(TABLE)).table().tableStatus()
            == TableStatus.ACTIVE) {
          return;
        }
      } catch (ResourceNotFoundException notYet) {
        // being created
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    throw new IllegalStateException("ledger table " + TABLE + " did not become active");
  }

  private static AttributeDefinition attribute(String name) {
    return AttributeDefinition.builder()
        .attributeName(name)
        .attributeType(ScalarAttributeType.S)
        .build();
  }

  private static String entry(String runId, String key) {
    return runId + "/" + key;
  }

  @Override
  public void append(String runId, String key, String worker, String nonce) {
    client.putItem(
        b ->
            b.tableName(TABLE)
                .item(
                    Map.of(
                        "entry", AttributeValue.fromS(entry(runId, key)),
                        "nonce", AttributeValue.fromS(nonce),
                        "worker", AttributeValue.fromS(worker))));
  }

  @Override
  public Map<String, Long> counts(String runId, Collection<String> keys) {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String key : keys) {
      counts.put(
          key,
          (long)
              client
                  .query(
                      b ->
                          b.tableName(TABLE)
                              .consistentRead(true)
                              .select(Select.COUNT)
                              .keyConditionExpression("#e = :e")
                              .expressionAttributeNames(Map.of("#e", "entry"))
                              .expressionAttributeValues(
                                  Map.of(":e", AttributeValue.fromS(entry(runId, key)))))
                  .count());
    }
    return counts;
  }

  @Override
  public void clear(String runId, Collection<String> keys) {
    for (String key : keys) {
      List<Map<String, AttributeValue>> items =
          client
              .query(
                  b ->
                      b.tableName(TABLE)
                          .keyConditionExpression("#e = :e")
                          .expressionAttributeNames(Map.of("#e", "entry"))
                          .expressionAttributeValues(
                              Map.of(":e", AttributeValue.fromS(entry(runId, key)))))
              .items();
      for (Map<String, AttributeValue> item : items) {
        client.deleteItem(
            b ->
                b.tableName(TABLE)
                    .key(Map.of("entry", item.get("entry"), "nonce", item.get("nonce"))));
      }
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
