package dev.idempotent.dynamodb.internal;

import static dev.idempotent.dynamodb.internal.RecordItem.COMPLETED;
import static dev.idempotent.dynamodb.internal.RecordItem.EXPIRES_AT;
import static dev.idempotent.dynamodb.internal.RecordItem.IN_PROGRESS;
import static dev.idempotent.dynamodb.internal.RecordItem.OUTCOME;
import static dev.idempotent.dynamodb.internal.RecordItem.OWNER;
import static dev.idempotent.dynamodb.internal.RecordItem.PK;
import static dev.idempotent.dynamodb.internal.RecordItem.STATUS;
import static dev.idempotent.dynamodb.internal.RecordItem.TTL;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The requests of every store operation and how their answers read, shared by the blocking and the
 * non-blocking client so that both send exactly the same conditions.
 *
 * <h2>Time</h2>
 *
 * DynamoDB offers no server time to a condition, so every request carries the caller's clock
 * reading ({@code :now}) and every condition compares it with the {@code expiresAt} another caller
 * wrote. A claim in progress counts as live until {@code maxClockSkew} after its lease ended, by
 * the reader's clock: a caller whose clock runs ahead by up to that much never takes over a claim
 * whose holder still sees its lease running. A completed record ends with its ttl, by the reader's
 * clock.
 *
 * <h2>Conditions</h2>
 *
 * <ul>
 *   <li>claim: {@code PutItem} when no item exists, or it is a completed record whose ttl ended, or
 *       a claim that is no longer live; the old item comes back ({@code ALL_OLD}) to tell a
 *       takeover from a fresh claim. Refused: the item comes back with the refusal where DynamoDB
 *       returns it, else one strongly consistent {@code GetItem} reads it.
 *   <li>complete, renew: {@code UpdateItem}; release: {@code DeleteItem}; each when the item is a
 *       live claim of the owner token. A refused complete reads the item once: completed by the
 *       same owner (a completion the SDK sent again after its answer was lost) answers {@code
 *       true}.
 *   <li>delete: {@code DeleteItem} when the item is live, whatever its owner.
 * </ul>
 */
public final class RecordRequests {
  private static final String LIVE_CLAIM =
      "#st = :inProgress AND #own = :owner AND #exp > :liveAfter";
  private static final String LIVE =
      "(#st = :inProgress AND #exp > :liveAfter) OR (#st = :completed AND #exp > :now)";
  private static final String FREE =
      "attribute_not_exists(#pk) OR #exp <= :liveAfter OR (#st = :completed AND #exp <= :now)";

  private final String table;
  private final Clock clock;
  private final long skewMillis;
  private final AwsRequestOverrideConfiguration timeouts;

  public RecordRequests(String table, Clock clock, Duration maxClockSkew, Duration timeout) {
    this.table = table;
    this.clock = clock;
    this.skewMillis = maxClockSkew.toMillis();
    this.timeouts =
        AwsRequestOverrideConfiguration.builder()
            .apiCallTimeout(timeout)
            .apiCallAttemptTimeout(timeout.dividedBy(2))
            .build();
  }

  public String table() {
    return table;
  }

  public long now() {
    return clock.millis();
  }

  /** The claim's {@code PutItem}, at {@code now}. */
  public PutItemRequest claim(
      RecordKey key, String owner, String fingerprint, Duration lease, long now) {
    Map<String, String> names = new HashMap<>();
    names.put("#pk", PK);
    names.put("#exp", EXPIRES_AT);
    names.put("#st", STATUS);
    return PutItemRequest.builder()
        .tableName(table)
        .item(RecordItem.claim(key, owner, fingerprint, now + lease.toMillis(), skewMillis))
        .conditionExpression(FREE)
        .expressionAttributeNames(names)
        .expressionAttributeValues(
            Map.of(
                ":liveAfter", RecordItem.number(now - skewMillis),
                ":now", RecordItem.number(now),
                ":completed", AttributeValue.fromS(COMPLETED)))
        .returnValues(ReturnValue.ALL_OLD)
        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
        .overrideConfiguration(timeouts)
        .build();
  }

  /** What an accepted claim's answer means: a takeover when a claim was replaced. */
  public static ClaimResult claimed(PutItemResponse response) {
    return response.hasAttributes() && IN_PROGRESS.equals(RecordItem.status(response.attributes()))
        ? ClaimResult.tookOver()
        : ClaimResult.acquired();
  }

  /**
   * The item that refused a claim, when DynamoDB sent it with the refusal (dynalite does not); else
   * {@code null}, and the caller reads it.
   */
  public static Map<String, AttributeValue> refusingItem(ConditionalCheckFailedException e) {
    return e.hasItem() && !e.item().isEmpty() ? e.item() : null;
  }

  /** A strongly consistent read of the whole item. */
  public GetItemRequest read(RecordKey key) {
    return GetItemRequest.builder()
        .tableName(table)
        .key(RecordItem.keyOf(key))
        .consistentRead(true)
        .overrideConfiguration(timeouts)
        .build();
  }

  /** The live record in {@code item} at {@code now}. */
  public Optional<IdempotencyRecord> decode(
      RecordKey key, Map<String, AttributeValue> item, long now) {
    return RecordItem.decode(key, item, now, skewMillis);
  }

  /**
   * The complete's {@code UpdateItem}.
   *
   * @throws OutcomeNotRecordedException releasing the key when the completed item would be larger
   *     than DynamoDB's item limit
   */
  public UpdateItemRequest complete(
      RecordKey key, String owner, byte[] outcome, Duration ttl, long now) {
    if (RecordItem.completedItemBytes(key, owner, outcome.length) > RecordItem.MAX_ITEM_BYTES) {
      throw oversized(key, outcome.length, null);
    }
    long expiresAt = now + ttl.toMillis();
    Map<String, AttributeValue> values = ownerCheck(owner, now);
    values.put(":completed", AttributeValue.fromS(COMPLETED));
    values.put(":expiresAt", RecordItem.number(expiresAt));
    values.put(":ttl", RecordItem.ttl(expiresAt, skewMillis));
    Map<String, String> names = ownerCheckNames();
    names.put("#ttl", TTL);
    String update = "SET #st = :completed, #exp = :expiresAt, #ttl = :ttl";
    if (outcome.length > 0) {
      names.put("#out", OUTCOME);
      values.put(":outcome", RecordItem.outcome(outcome));
      update += ", #out = :outcome";
    }
    return UpdateItemRequest.builder()
        .tableName(table)
        .key(RecordItem.keyOf(key))
        .updateExpression(update)
        .conditionExpression(LIVE_CLAIM)
        .expressionAttributeNames(names)
        .expressionAttributeValues(values)
        .overrideConfiguration(timeouts)
        .build();
  }

  /**
   * Whether a refused complete was in fact applied before, exactly so: {@code item} (read after the
   * refusal) is completed under {@code owner} with {@code outcome}. A completion the SDK sent again
   * after the answer to the first was lost is then answered {@code true}, as the first was.
   */
  public static boolean completedBy(
      Map<String, AttributeValue> item, String owner, byte[] outcome) {
    if (item == null
        || !COMPLETED.equals(RecordItem.status(item))
        || !owner.equals(RecordItem.owner(item))) {
      return false;
    }
    AttributeValue stored = item.get(OUTCOME);
    return stored == null
        ? outcome.length == 0
        : java.util.Arrays.equals(stored.b().asByteArrayUnsafe(), outcome);
  }

  /**
   * A refusal of {@code e} for its size, as {@link OutcomeNotRecordedException#releasingTheKey};
   * {@code null} for any other failure.
   */
  public static OutcomeNotRecordedException sizeRefusal(
      RecordKey key, int outcomeLength, Throwable e) {
    if (e instanceof DynamoDbException d
        && d.statusCode() == 400
        && d.getMessage() != null
        && d.getMessage().toLowerCase(java.util.Locale.ROOT).contains("item size")) {
      return oversized(key, outcomeLength, d);
    }
    return null;
  }

  private static OutcomeNotRecordedException oversized(
      RecordKey key, int outcomeLength, Throwable cause) {
    return OutcomeNotRecordedException.releasingTheKey(
        "the outcome of "
            + key
            + " is "
            + outcomeLength
            + " bytes and does not fit in one DynamoDB item (400 KB, names and values of all"
            + " attributes together): record a smaller result for this method (return less, or"
            + " keep the large part elsewhere and record its reference)",
        cause == null ? null : new IllegalStateException(cause.getMessage()));
  }

  /** The renew's {@code UpdateItem}. */
  public UpdateItemRequest renew(RecordKey key, String owner, Duration lease, long now) {
    long expiresAt = now + lease.toMillis();
    Map<String, AttributeValue> values = ownerCheck(owner, now);
    values.put(":expiresAt", RecordItem.number(expiresAt));
    values.put(":ttl", RecordItem.ttl(expiresAt, skewMillis));
    Map<String, String> names = ownerCheckNames();
    names.put("#ttl", TTL);
    return UpdateItemRequest.builder()
        .tableName(table)
        .key(RecordItem.keyOf(key))
        .updateExpression("SET #exp = :expiresAt, #ttl = :ttl")
        .conditionExpression(LIVE_CLAIM)
        .expressionAttributeNames(names)
        .expressionAttributeValues(values)
        .overrideConfiguration(timeouts)
        .build();
  }

  /** The release's {@code DeleteItem}. */
  public DeleteItemRequest release(RecordKey key, String owner, long now) {
    return DeleteItemRequest.builder()
        .tableName(table)
        .key(RecordItem.keyOf(key))
        .conditionExpression(LIVE_CLAIM)
        .expressionAttributeNames(ownerCheckNames())
        .expressionAttributeValues(ownerCheck(owner, now))
        .overrideConfiguration(timeouts)
        .build();
  }

  /** The administrative delete's {@code DeleteItem}: any live record. */
  public DeleteItemRequest delete(RecordKey key, long now) {
    return DeleteItemRequest.builder()
        .tableName(table)
        .key(RecordItem.keyOf(key))
        .conditionExpression(LIVE)
        .expressionAttributeNames(Map.of("#st", STATUS, "#exp", EXPIRES_AT))
        .expressionAttributeValues(
            Map.of(
                ":inProgress", AttributeValue.fromS(IN_PROGRESS),
                ":completed", AttributeValue.fromS(COMPLETED),
                ":liveAfter", RecordItem.number(now - skewMillis),
                ":now", RecordItem.number(now)))
        .overrideConfiguration(timeouts)
        .build();
  }

  private Map<String, AttributeValue> ownerCheck(String owner, long now) {
    Map<String, AttributeValue> values = new HashMap<>();
    values.put(":inProgress", AttributeValue.fromS(IN_PROGRESS));
    values.put(":owner", AttributeValue.fromS(owner));
    values.put(":liveAfter", RecordItem.number(now - skewMillis));
    return values;
  }

  private static Map<String, String> ownerCheckNames() {
    Map<String, String> names = new HashMap<>();
    names.put("#st", STATUS);
    names.put("#own", OWNER);
    names.put("#exp", EXPIRES_AT);
    return names;
  }
}
