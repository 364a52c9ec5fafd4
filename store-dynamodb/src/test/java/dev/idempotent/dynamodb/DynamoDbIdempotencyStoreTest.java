package dev.idempotent.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.dynamodb.internal.RecordItem;
import dev.idempotent.dynamodb.internal.RecordRequests;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;

/** What the DynamoDB store writes, and the answers that only it has to give. */
class DynamoDbIdempotencyStoreTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final String TABLE = "idem-store";

  private static RecordKey newKey() {
    return RecordKey.of("store-" + UUID.randomUUID(), "k");
  }

  private static Map<String, AttributeValue> rawItem(RecordKey key) {
    return DynamoDbTestEnvironment.client()
        .getItem(b -> b.tableName(TABLE).key(RecordItem.keyOf(key)).consistentRead(true))
        .item();
  }

  @Test
  void theItemHoldsTheDocumentedAttributes() {
    ManualClock clock = new ManualClock(1_800_000_000_123L);
    try (DynamoDbIdempotencyStore store =
        DynamoDbTestEnvironment.storeOn(TABLE)
            .clock(clock)
            .maxClockSkew(Duration.ofSeconds(1))
            .build()) {
      RecordKey key = RecordKey.of("scope:a", "b");
      store.delete(key);
      store.claim(key, "owner-1", "fp-1", LEASE);

      Map<String, AttributeValue> claim = rawItem(key);
      assertThat(claim.get("pk").s()).isEqualTo("7:scope:ab");
      assertThat(claim.get("fmt").n()).isEqualTo("1");
      assertThat(claim.get("status").s()).isEqualTo("IN_PROGRESS");
      assertThat(claim.get("owner").s()).isEqualTo("owner-1");
      assertThat(claim.get("fingerprint").s()).isEqualTo("fp-1");
      assertThat(claim.get("expiresAt").n()).isEqualTo("1800000030123");
      assertThat(claim.get("ttl").n())
          .as("seconds, skew added, rounded up")
          .isEqualTo("1800000032");
      assertThat(claim).doesNotContainKey("outcome");

      store.complete(key, "owner-1", new byte[] {0, (byte) 0xFF}, Duration.ofHours(1));
      Map<String, AttributeValue> done = rawItem(key);
      assertThat(done.get("status").s()).isEqualTo("COMPLETED");
      assertThat(done.get("owner").s()).isEqualTo("owner-1");
      assertThat(done.get("fingerprint").s()).isEqualTo("fp-1");
      assertThat(done.get("outcome").b().asByteArray()).containsExactly(0, 0xFF);
      assertThat(done.get("expiresAt").n()).isEqualTo("1800003600123");
      store.delete(key);
    }
  }

  @Test
  void anEmptyOutcomeIsStoredWithoutTheOutcomeAttribute() {
    try (DynamoDbIdempotencyStore store = DynamoDbTestEnvironment.storeOn(TABLE).build()) {
      RecordKey key = newKey();
      store.claim(key, "o", null, LEASE);
      assertThat(store.complete(key, "o", new byte[0], LEASE)).isTrue();

      assertThat(rawItem(key)).doesNotContainKey("outcome").doesNotContainKey("fingerprint");
      assertThat(store.read(key).orElseThrow().outcome()).isEmpty();
    }
  }

  @Test
  void aClaimSentAgainAfterItsAnswerWasLostIsTheClaim() {
    try (DynamoDbIdempotencyStore store = DynamoDbTestEnvironment.storeOn(TABLE).build()) {
      RecordKey key = newKey();
      assertThat(store.claim(key, "once", null, LEASE).isAcquired()).isTrue();

      ClaimResult again = store.claim(key, "once", null, LEASE);
      ClaimResult againAsync =
          store.claimAsync(key, "once", null, LEASE).toCompletableFuture().join();

      assertThat(again.isAcquired()).as("the same owner token's claim again: %s", again).isTrue();
      assertThat(againAsync.isAcquired()).as("through the async client: %s", againAsync).isTrue();
      assertThat(store.claim(key, "other", null, LEASE).isAcquired()).isFalse();
    }
  }

  @Test
  void aCompletionSentAgainAnswersTrueAndAnotherOutcomeFalse() {
    try (DynamoDbIdempotencyStore store = DynamoDbTestEnvironment.storeOn(TABLE).build()) {
      RecordKey key = newKey();
      store.claim(key, "o", null, LEASE);
      assertThat(store.complete(key, "o", new byte[] {1}, LEASE)).isTrue();

      assertThat(store.complete(key, "o", new byte[] {1}, LEASE)).as("the same again").isTrue();
      assertThat(store.completeAsync(key, "o", new byte[] {1}, LEASE).toCompletableFuture().join())
          .as("the same again, async")
          .isTrue();
      assertThat(store.complete(key, "o", new byte[] {2}, LEASE)).as("another outcome").isFalse();
      assertThat(store.complete(key, "x", new byte[] {1}, LEASE)).as("another owner").isFalse();
      assertThat(store.read(key).orElseThrow().outcome()).containsExactly(1);
    }
  }

  @Test
  void aRefusalThatCarriesTheItemIsAnsweredWithoutAnotherRead() {
    AtomicInteger reads = new AtomicInteger();
    DynamoDbClient real = DynamoDbTestEnvironment.client();
    DynamoDbClient returnsItemOnRefusal =
        new DynamoDbClient() {
          @Override
          public PutItemResponse putItem(PutItemRequest request) {
            try {
              return real.putItem(request);
            } catch (ConditionalCheckFailedException e) {
              // what DynamoDB sends with ReturnValuesOnConditionCheckFailure=ALL_OLD
              Map<String, AttributeValue> old =
                  real.getItem(
                          b ->
                              b.tableName(request.tableName())
                                  .key(Map.of("pk", request.item().get("pk")))
                                  .consistentRead(true))
                      .item();
              throw ConditionalCheckFailedException.builder()
                  .message(e.getMessage())
                  .statusCode(400)
                  .item(old)
                  .build();
            }
          }

          @Override
          public GetItemResponse getItem(GetItemRequest request) {
            reads.incrementAndGet();
            return real.getItem(request);
          }

          @Override
          public DescribeTableResponse describeTable(DescribeTableRequest request) {
            return real.describeTable(request);
          }

          @Override
          public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
            return real.describeTimeToLive(request);
          }

          @Override
          public String serviceName() {
            return real.serviceName();
          }

          @Override
          public void close() {}
        };
    try (DynamoDbIdempotencyStore store =
        DynamoDbIdempotencyStore.builder()
            .clients(returnsItemOnRefusal, DynamoDbTestEnvironment.asyncClient())
            .table(TABLE)
            .build()) {
      RecordKey key = newKey();
      store.claim(key, "first", "fp", LEASE);

      ClaimResult refused = store.claim(key, "second", "fp", LEASE);

      assertThat(refused.existing().ownerToken()).isEqualTo("first");
      assertThat(reads).as("reads by the store after the refusal").hasValue(0);
    }
  }

  @Test
  void anItemOfAnotherFormatIsReportedNotMisread() {
    try (DynamoDbIdempotencyStore store = DynamoDbTestEnvironment.storeOn(TABLE).build()) {
      RecordKey key = newKey();
      Map<String, AttributeValue> item = new HashMap<>(RecordItem.keyOf(key));
      item.put("fmt", AttributeValue.fromN("2"));
      item.put("status", AttributeValue.fromS("COMPLETED"));
      item.put("expiresAt", AttributeValue.fromN(Long.toString(Long.MAX_VALUE / 2)));
      DynamoDbTestEnvironment.client().putItem(b -> b.tableName(TABLE).item(item));

      assertThatThrownBy(() -> store.read(key))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("format version 2")
          .hasMessageContaining("reads version 1");
    }
  }

  @Test
  void aSizeRefusalOfDynamoDbReleasesTheKeyAndNamesTheLimit() {
    RecordKey key = RecordKey.of("s", "secret-key-text");
    DynamoDbException tooLarge =
        (DynamoDbException)
            DynamoDbException.builder()
                .message("Item size has exceeded the maximum allowed size")
                .statusCode(400)
                .build();

    OutcomeNotRecordedException e = RecordRequests.sizeRefusal(key, 500_000, tooLarge);

    assertThat(e).isNotNull();
    assertThat(e.failsTheCall()).isFalse();
    assertThat(e.getMessage()).contains("500000 bytes", "400 KB").doesNotContain("secret-key-text");
    assertThat(
            RecordRequests.sizeRefusal(
                key,
                10,
                DynamoDbException.builder().message("Throughput exceeded").statusCode(400).build()))
        .as("another refusal")
        .isNull();
  }

  @Test
  void anOutcomeJustUnderTheItemLimitIsRecordedAndOneOverReleasesTheKey() {
    try (DynamoDbIdempotencyStore store = DynamoDbTestEnvironment.storeOn(TABLE).build()) {
      RecordKey key = newKey();
      store.claim(key, "o", "fp", LEASE);
      assertThatThrownBy(() -> store.complete(key, "o", new byte[RecordItem.MAX_ITEM_BYTES], LEASE))
          .isInstanceOf(OutcomeNotRecordedException.class)
          .hasMessageContaining("400 KB");
      byte[] fits = new byte[RecordItem.MAX_ITEM_BYTES - 600];
      assertThat(store.complete(key, "o", fits, LEASE)).isTrue();
      assertThat(store.read(key).orElseThrow().outcome()).hasSize(fits.length);
    }
  }

  @Test
  void keysLongerThanTheStoresLengthAreRefusedWithWhatToDo() {
    try (DynamoDbIdempotencyStore store = DynamoDbTestEnvironment.storeOn(TABLE).build()) {
      RecordKey unfitted = RecordKey.of("s", "k".repeat(store.maxKeyLength() + 1));
      assertThatThrownBy(() -> store.claim(unfitted, "o", null, LEASE))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("fittedTo");
      RecordKey longest =
          RecordKey.of("\u4e2d".repeat(store.maxKeyLength()), "\u4e2d".repeat(store.maxKeyLength()))
              .fittedTo(store.maxKeyLength());
      assertThat(store.claim(longest, "o", null, LEASE).isAcquired())
          .as("the longest scope and key, three UTF-8 bytes a character")
          .isTrue();
    }
  }
}
