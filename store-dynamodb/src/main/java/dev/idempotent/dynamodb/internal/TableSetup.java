package dev.idempotent.dynamodb.internal;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * Makes sure the table is there before the first record is written: verified when it exists,
 * created (on-demand billing, TTL on {@code ttl}) when it does not and the application allows it,
 * else reported with what to do.
 *
 * <p>Many instances may start at once on a missing table: each sends {@code CreateTable}, the one
 * DynamoDB accepts creates it and the others get {@code ResourceInUseException}, which here means
 * "someone is creating it"; every instance then waits until the table is {@code ACTIVE}, polling
 * {@code DescribeTable} with a growing pause, within {@code activeWithin}.
 */
public final class TableSetup {
  private static final Logger log = LoggerFactory.getLogger(TableSetup.class);

  /** Tables whose missing TTL was already reported by this JVM: once each. */
  private static final Set<String> TTL_REPORTED = ConcurrentHashMap.newKeySet();

  private TableSetup() {}

  /**
   * Verifies the table, creating it first when it is missing and {@code create} is set.
   *
   * @throws IllegalArgumentException the table has another key than this store's
   * @throws IllegalStateException the table is missing and may not be created, or did not become
   *     active within {@code activeWithin}
   */
  public static void ensure(
      DynamoDbClient client,
      String table,
      boolean create,
      Duration activeWithin,
      AwsRequestOverrideConfiguration timeouts) {
    TableDescription description;
    boolean created = false;
    try {
      description =
          client.describeTable(b -> b.tableName(table).overrideConfiguration(timeouts)).table();
    } catch (ResourceNotFoundException missing) {
      if (!create) {
        throw new IllegalStateException(
            "the DynamoDB table "
                + table
                + " does not exist: create it as docs/stores/dynamodb.md shows (partition key "
                + RecordItem.PK
                + " of type S, TTL on "
                + RecordItem.TTL
                + "), or let the store create it (idempotent.dynamodb.create-table=true, or"
                + " createTable(true) on the builder)",
            missing);
      }
      description = create(client, table, timeouts);
      created = true;
    }
    checkKey(table, description);
    if (description.hasReplicas() && !description.replicas().isEmpty()) {
      log.warn(
          "the DynamoDB table {} is a global table (replicas in {}): claims made in different"
              + " regions are not exclusive, as conditional writes are only checked within one"
              + " region and replication keeps the last writer; use the table from one region"
              + " only (docs/stores/dynamodb.md)",
          table,
          description.replicas().stream().map(r -> r.regionName()).toList());
    }
    if (description.tableStatus() != TableStatus.ACTIVE) {
      waitUntilActive(client, table, activeWithin, timeouts);
    }
    if (created) {
      enableTtl(client, table, timeouts);
    }
    checkTtl(client, table, timeouts);
  }

  private static TableDescription create(
      DynamoDbClient client, String table, AwsRequestOverrideConfiguration timeouts) {
    try {
      TableDescription created =
          client
              .createTable(
                  b ->
                      b.tableName(table)
                          .billingMode(BillingMode.PAY_PER_REQUEST)
                          .attributeDefinitions(
                              AttributeDefinition.builder()
                                  .attributeName(RecordItem.PK)
                                  .attributeType(ScalarAttributeType.S)
                                  .build())
                          .keySchema(
                              KeySchemaElement.builder()
                                  .attributeName(RecordItem.PK)
                                  .keyType(KeyType.HASH)
                                  .build())
                          .overrideConfiguration(timeouts))
              .tableDescription();
      log.info("created the DynamoDB table {} (on-demand billing)", table);
      return created;
    } catch (ResourceInUseException another) {
      // another instance is creating it: read what it made
      return client.describeTable(b -> b.tableName(table).overrideConfiguration(timeouts)).table();
    }
  }

  private static void checkKey(String table, TableDescription description) {
    List<KeySchemaElement> key = description.keySchema();
    boolean ours =
        key.size() == 1
            && key.get(0).keyType() == KeyType.HASH
            && RecordItem.PK.equals(key.get(0).attributeName())
            && description.attributeDefinitions().stream()
                .anyMatch(
                    a ->
                        RecordItem.PK.equals(a.attributeName())
                            && a.attributeType() == ScalarAttributeType.S);
    if (!ours) {
      throw new IllegalArgumentException(
          "the DynamoDB table "
              + table
              + " has the key "
              + key
              + ", and this store needs a table whose only key is the partition key "
              + RecordItem.PK
              + " of type S: give the store a table of its own (docs/stores/dynamodb.md)");
    }
  }

  private static void waitUntilActive(
      DynamoDbClient client,
      String table,
      Duration activeWithin,
      AwsRequestOverrideConfiguration timeouts) {
    long deadline = System.nanoTime() + activeWithin.toNanos();
    long pauseMillis = 50;
    while (true) {
      TableStatus status;
      try {
        status =
            client
                .describeTable(b -> b.tableName(table).overrideConfiguration(timeouts))
                .table()
                .tableStatus();
      } catch (ResourceNotFoundException notYetVisible) {
        status = TableStatus.CREATING;
      }
      if (status == TableStatus.ACTIVE) {
        return;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new IllegalStateException(
            "the DynamoDB table "
                + table
                + " is "
                + status
                + " and did not become ACTIVE within "
                + activeWithin);
      }
      try {
        Thread.sleep(pauseMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for table " + table, e);
      }
      pauseMillis = Math.min(pauseMillis * 2, 1000);
    }
  }

  /** Turns TTL on for {@code ttl}; another instance may have done it already. */
  private static void enableTtl(
      DynamoDbClient client, String table, AwsRequestOverrideConfiguration timeouts) {
    try {
      client.updateTimeToLive(
          b ->
              b.tableName(table)
                  .timeToLiveSpecification(s -> s.enabled(true).attributeName(RecordItem.TTL))
                  .overrideConfiguration(timeouts));
    } catch (DynamoDbException e) {
      if (e.getMessage() == null || !e.getMessage().contains("already enabled")) {
        log.warn(
            "could not turn on TTL for the DynamoDB table {} ({}): expired records are not"
                + " deleted by DynamoDB; turn on TTL on the attribute {}",
            table,
            e.getMessage(),
            RecordItem.TTL);
        TTL_REPORTED.add(table);
      }
    }
  }

  /** Reports, once per table, a table whose TTL is not on {@code ttl}. */
  private static void checkTtl(
      DynamoDbClient client, String table, AwsRequestOverrideConfiguration timeouts) {
    if (TTL_REPORTED.contains(table)) {
      return;
    }
    try {
      var ttl =
          client
              .describeTimeToLive(b -> b.tableName(table).overrideConfiguration(timeouts))
              .timeToLiveDescription();
      boolean on =
          (ttl.timeToLiveStatus() == TimeToLiveStatus.ENABLED
                  || ttl.timeToLiveStatus() == TimeToLiveStatus.ENABLING)
              && RecordItem.TTL.equals(ttl.attributeName());
      if (!on && TTL_REPORTED.add(table)) {
        log.warn(
            "TTL of the DynamoDB table {} is not on the attribute {} (it is {}): expired records"
                + " behave as missing but stay in the table; turn TTL on for {}",
            table,
            RecordItem.TTL,
            ttl.timeToLiveStatusAsString(),
            RecordItem.TTL);
      }
    } catch (DynamoDbException e) {
      if (TTL_REPORTED.add(table)) {
        log.warn(
            "could not read the TTL setting of the DynamoDB table {}: {}", table, e.getMessage());
      }
    }
  }
}
