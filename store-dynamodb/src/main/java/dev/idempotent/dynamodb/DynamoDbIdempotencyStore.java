package dev.idempotent.dynamodb;

import dev.idempotent.dynamodb.internal.RecordItem;
import dev.idempotent.dynamodb.internal.RecordRequests;
import dev.idempotent.dynamodb.internal.TableSetup;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClientBuilder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * An idempotency store in an Amazon DynamoDB table: one item per key, written with conditional
 * requests, so that each operation of the protocol is one atomic request on one item (see {@link
 * RecordRequests} for the conditions and docs/stores/dynamodb.md for the table, the item and the
 * costs).
 *
 * <ul>
 *   <li>The blocking operations use a {@link DynamoDbClient}, the non-blocking ones ({@link
 *       AsyncIdempotencyStore}) a {@link DynamoDbAsyncClient}: no caller's thread waits for I/O.
 *   <li>Claim: one conditional {@code PutItem}; when refused, one strongly consistent {@code
 *       GetItem} unless DynamoDB sent the item back with the refusal. Complete, renew and release:
 *       one request each, conditional on the owner token. Reads are strongly consistent.
 *   <li>Time: DynamoDB has no server clock for conditions, so leases and ttls are judged by the
 *       callers' clocks, which may differ by up to {@link Builder#maxClockSkew} (default {@value
 *       #DEFAULT_MAX_CLOCK_SKEW_MILLIS} ms): a claim is taken over only once its lease ended that
 *       much earlier on the claimant's clock.
 *   <li>Waiting for a key in progress polls it with a growing pause ({@value #FIRST_POLL_MILLIS} ms
 *       doubling to {@value #LONGEST_POLL_MILLIS} ms) within the wait bound.
 *   <li>Outcomes: up to DynamoDB's item limit of 400 KB with the other attributes; a larger one
 *       releases the key ({@link OutcomeNotRecordedException#releasingTheKey}).
 *   <li>Batch renewal: one conditional {@code UpdateItem} per claim, all sent at once on the
 *       asynchronous client. {@code TransactWriteItems} would fail a whole batch for one lost
 *       claim, holds at most 100 items and costs twice the write units.
 * </ul>
 *
 * Clients handed to the builder are the application's and stay open on {@link #close()}; clients
 * the builder makes (from region, endpoint and credentials) are the store's and are closed with it.
 */
public final class DynamoDbIdempotencyStore implements IdempotencyStore, AsyncIdempotencyStore {
  /** The default table name. */
  public static final String DEFAULT_TABLE = "idempotency";

  /** The default time for each operation, SDK retries included. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  static final long DEFAULT_MAX_CLOCK_SKEW_MILLIS = 1000;

  /** The default largest difference between the clocks of two hosts using the table. */
  public static final Duration DEFAULT_MAX_CLOCK_SKEW =
      Duration.ofMillis(DEFAULT_MAX_CLOCK_SKEW_MILLIS);

  /** How long a table being created may take to become active. */
  public static final Duration DEFAULT_TABLE_ACTIVE_WITHIN = Duration.ofMinutes(2);

  static final long FIRST_POLL_MILLIS = 20;
  static final long LONGEST_POLL_MILLIS = 500;

  /** Claims in a row that meet a key changing under them before one gives up. */
  private static final int CLAIM_ATTEMPTS = 5;

  private static final Pattern TABLE_NAME = Pattern.compile("[a-zA-Z0-9_.-]{3,255}");

  private final DynamoDbClient client;
  private final DynamoDbAsyncClient asyncClient;
  private final boolean ownsClients;
  private final RecordRequests requests;
  private final Duration timeout;
  private final ScheduledExecutorService pollTimer;

  private DynamoDbIdempotencyStore(
      DynamoDbClient client,
      DynamoDbAsyncClient asyncClient,
      boolean ownsClients,
      RecordRequests requests,
      Duration timeout) {
    this.client = client;
    this.asyncClient = asyncClient;
    this.ownsClients = ownsClients;
    this.requests = requests;
    this.timeout = timeout;
    this.pollTimer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "idempotent-dynamodb-poll-" + requests.table());
              t.setDaemon(true);
              return t;
            });
  }

  /** A builder; give it clients or a region (and an endpoint, for a local DynamoDB). */
  public static Builder builder() {
    return new Builder();
  }

  /** The table this store writes to. */
  public String table() {
    return requests.table();
  }

  @Override
  public int maxKeyLength() {
    return RecordItem.MAX_KEY_LENGTH;
  }

  // ---- blocking ----

  @Override
  public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    checkKey(key);
    for (int attempt = 1; ; attempt++) {
      long now = requests.now();
      try {
        return RecordRequests.claimed(
            client.putItem(requests.claim(key, ownerToken, fingerprint, lease, now)));
      } catch (ConditionalCheckFailedException refused) {
        Map<String, AttributeValue> item = RecordRequests.refusingItem(refused);
        long at = now;
        if (item == null) {
          item = client.getItem(requests.read(key)).item();
          at = requests.now();
        }
        Optional<IdempotencyRecord> live = requests.decode(key, item, at);
        if (live.isPresent()) {
          return refused(live.get(), ownerToken);
        }
        if (attempt == CLAIM_ATTEMPTS) {
          throw keyKeptChanging(key);
        }
      }
    }
  }

  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    checkKey(key);
    UpdateItemRequest update = requests.complete(key, ownerToken, outcome, ttl, requests.now());
    try {
      client.updateItem(update);
      return true;
    } catch (ConditionalCheckFailedException refused) {
      Map<String, AttributeValue> item = RecordRequests.refusingItem(refused);
      if (item == null) {
        item = client.getItem(requests.read(key)).item();
      }
      return RecordRequests.completedBy(item, ownerToken, outcome);
    } catch (RuntimeException e) {
      OutcomeNotRecordedException tooLarge = RecordRequests.sizeRefusal(key, outcome.length, e);
      throw tooLarge != null ? tooLarge : e;
    }
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    checkKey(key);
    try {
      client.deleteItem(requests.release(key, ownerToken, requests.now()));
      return true;
    } catch (ConditionalCheckFailedException fenced) {
      return false;
    }
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    checkKey(key);
    try {
      client.updateItem(requests.renew(key, ownerToken, lease, requests.now()));
      return true;
    } catch (ConditionalCheckFailedException fenced) {
      return false;
    }
  }

  /**
   * {@link #renewAllAsync}, awaited: one conditional update per claim, sent at once on the
   * asynchronous client.
   */
  @Override
  public boolean[] renewAll(List<HeldClaim> claims, Duration lease) {
    return await(renewAllAsync(claims, lease));
  }

  @Override
  public boolean delete(RecordKey key) {
    checkKey(key);
    try {
      client.deleteItem(requests.delete(key, requests.now()));
      return true;
    } catch (ConditionalCheckFailedException notLive) {
      return false;
    }
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    checkKey(key);
    GetItemResponse response = client.getItem(requests.read(key));
    return requests.decode(key, response.item(), requests.now());
  }

  /**
   * Polls the record with a growing pause until its status or owner changes, it is gone or expired,
   * or {@code maxWait} has passed.
   */
  @Override
  public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
    long deadline = System.nanoTime() + maxWait.toNanos();
    Optional<IdempotencyRecord> first = read(key);
    long pause = FIRST_POLL_MILLIS;
    while (first.isPresent()) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        return;
      }
      Thread.sleep(Math.min(pause, left));
      pause = Math.min(pause * 2, LONGEST_POLL_MILLIS);
      if (changed(first.get(), read(key))) {
        return;
      }
    }
  }

  // ---- non-blocking ----

  @Override
  public CompletionStage<ClaimResult> claimAsync(
      RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    checkKey(key);
    return claimAsync(key, ownerToken, fingerprint, lease, 1);
  }

  private CompletableFuture<ClaimResult> claimAsync(
      RecordKey key, String ownerToken, String fingerprint, Duration lease, int attempt) {
    long now = requests.now();
    return asyncClient
        .putItem(requests.claim(key, ownerToken, fingerprint, lease, now))
        .<CompletableFuture<ClaimResult>>handle(
            (response, failure) -> {
              if (failure == null) {
                return CompletableFuture.completedFuture(RecordRequests.claimed(response));
              }
              if (!(unwrap(failure) instanceof ConditionalCheckFailedException refused)) {
                return CompletableFuture.failedFuture(unwrap(failure));
              }
              Map<String, AttributeValue> item = RecordRequests.refusingItem(refused);
              CompletableFuture<Map<String, AttributeValue>> read =
                  item != null
                      ? CompletableFuture.completedFuture(item)
                      : asyncClient.getItem(requests.read(key)).thenApply(GetItemResponse::item);
              long at = item != null ? now : -1;
              return read.thenCompose(
                  found -> {
                    Optional<IdempotencyRecord> live =
                        requests.decode(key, found, at >= 0 ? at : requests.now());
                    if (live.isPresent()) {
                      return CompletableFuture.completedFuture(refused(live.get(), ownerToken));
                    }
                    if (attempt == CLAIM_ATTEMPTS) {
                      return CompletableFuture.failedFuture(keyKeptChanging(key));
                    }
                    return claimAsync(key, ownerToken, fingerprint, lease, attempt + 1);
                  });
            })
        .thenCompose(stage -> stage);
  }

  @Override
  public CompletionStage<Boolean> completeAsync(
      RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    checkKey(key);
    UpdateItemRequest update;
    try {
      update = requests.complete(key, ownerToken, outcome, ttl, requests.now());
    } catch (OutcomeNotRecordedException tooLarge) {
      return CompletableFuture.failedFuture(tooLarge);
    }
    return asyncClient
        .updateItem(update)
        .<CompletableFuture<Boolean>>handle(
            (response, failure) -> {
              if (failure == null) {
                return CompletableFuture.completedFuture(true);
              }
              Throwable cause = unwrap(failure);
              if (cause instanceof ConditionalCheckFailedException refused) {
                Map<String, AttributeValue> item = RecordRequests.refusingItem(refused);
                return (item != null
                        ? CompletableFuture.completedFuture(item)
                        : asyncClient.getItem(requests.read(key)).thenApply(GetItemResponse::item))
                    .thenApply(found -> RecordRequests.completedBy(found, ownerToken, outcome));
              }
              OutcomeNotRecordedException tooLarge =
                  RecordRequests.sizeRefusal(key, outcome.length, cause);
              return CompletableFuture.failedFuture(tooLarge != null ? tooLarge : cause);
            })
        .thenCompose(stage -> stage);
  }

  @Override
  public CompletionStage<Boolean> releaseAsync(RecordKey key, String ownerToken) {
    checkKey(key);
    return fencedAnswer(asyncClient.deleteItem(requests.release(key, ownerToken, requests.now())));
  }

  @Override
  public CompletionStage<Boolean> renewAsync(RecordKey key, String ownerToken, Duration lease) {
    checkKey(key);
    return fencedAnswer(
        asyncClient.updateItem(requests.renew(key, ownerToken, lease, requests.now())));
  }

  /**
   * One conditional {@code UpdateItem} per claim, all sent at once: the batch answers after one
   * round trip's time, each claim is fenced on its own, and a lost claim costs nothing more. A
   * failed request fails the batch (the renewer then retries every claim of it).
   */
  @Override
  public CompletionStage<boolean[]> renewAllAsync(List<HeldClaim> claims, Duration lease) {
    boolean[] renewed = new boolean[claims.size()];
    CompletableFuture<?>[] each = new CompletableFuture<?>[renewed.length];
    long now = requests.now();
    for (int i = 0; i < renewed.length; i++) {
      int at = i;
      HeldClaim c = claims.get(i);
      checkKey(c.key());
      each[i] =
          fencedAnswer(asyncClient.updateItem(requests.renew(c.key(), c.ownerToken(), lease, now)))
              .thenAccept(r -> renewed[at] = r);
    }
    return CompletableFuture.allOf(each).thenApply(done -> renewed);
  }

  @Override
  public CompletionStage<Optional<IdempotencyRecord>> readAsync(RecordKey key) {
    checkKey(key);
    return asyncClient
        .getItem(requests.read(key))
        .handle(
            (response, failure) -> {
              if (failure != null) {
                throw new CompletionException(unwrap(failure));
              }
              return requests.decode(key, response.item(), requests.now());
            });
  }

  /** {@link #awaitChange} on the store's poll timer: no thread waits between the reads. */
  @Override
  public CompletionStage<Void> awaitChangeAsync(RecordKey key, Duration maxWait) {
    long deadline = System.nanoTime() + maxWait.toNanos();
    CompletableFuture<Void> changed = new CompletableFuture<>();
    readAsync(key)
        .whenComplete(
            (first, failure) -> {
              if (failure != null) {
                changed.completeExceptionally(unwrap(failure));
              } else if (first.isEmpty()) {
                changed.complete(null);
              } else {
                pollLater(key, first.get(), deadline, FIRST_POLL_MILLIS, changed);
              }
            });
    return changed;
  }

  private void pollLater(
      RecordKey key,
      IdempotencyRecord first,
      long deadline,
      long pause,
      CompletableFuture<Void> changed) {
    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
    if (left <= 0) {
      changed.complete(null);
      return;
    }
    try {
      pollTimer.schedule(
          () ->
              readAsync(key)
                  .whenComplete(
                      (now, failure) -> {
                        if (failure != null) {
                          changed.completeExceptionally(unwrap(failure));
                        } else if (changed(first, now)) {
                          changed.complete(null);
                        } else {
                          pollLater(
                              key,
                              first,
                              deadline,
                              Math.min(pause * 2, LONGEST_POLL_MILLIS),
                              changed);
                        }
                      }),
          Math.min(pause, left),
          TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      changed.complete(null);
    }
  }

  @Override
  public void close() {
    pollTimer.shutdownNow();
    if (ownsClients) {
      client.close();
      asyncClient.close();
    }
  }

  // ---- shared ----

  /**
   * The answer to a claim refused by {@code live}: the claim itself when {@code live} is this owner
   * token's (owner tokens are unique per call, so an earlier attempt of this claim, sent again by
   * the SDK after its answer was lost, wrote it), else the record that holds the key.
   */
  private static ClaimResult refused(IdempotencyRecord live, String ownerToken) {
    return !live.isCompleted() && ownerToken.equals(live.ownerToken())
        ? ClaimResult.acquired()
        : ClaimResult.existing(live);
  }

  private static boolean changed(IdempotencyRecord before, Optional<IdempotencyRecord> now) {
    return now.isEmpty()
        || now.get().status() != before.status()
        || !Objects.equals(now.get().ownerToken(), before.ownerToken());
  }

  private static CompletableFuture<Boolean> fencedAnswer(CompletableFuture<?> request) {
    return request.handle(
        (response, failure) -> {
          if (failure == null) {
            return true;
          }
          Throwable cause = unwrap(failure);
          if (cause instanceof ConditionalCheckFailedException) {
            return false;
          }
          throw new CompletionException(cause);
        });
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private <T> T await(CompletionStage<T> stage) {
    try {
      // every request of the stage ends within the timeout, SDK retries included
      return stage.toCompletableFuture().get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for DynamoDB", e);
    } catch (ExecutionException e) {
      Throwable cause = unwrap(e);
      throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "DynamoDB did not answer within " + timeout.multipliedBy(2), e);
    }
  }

  private static IllegalStateException keyKeptChanging(RecordKey key) {
    return new IllegalStateException(
        "the record of "
            + key
            + " changed under "
            + CLAIM_ATTEMPTS
            + " claims in a row (refused, then gone when read): try again");
  }

  private static void checkKey(RecordKey key) {
    if (key.scope().length() > RecordItem.MAX_KEY_LENGTH
        || key.key().length() > RecordItem.MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "the scope or key of "
              + key
              + " is longer than "
              + RecordItem.MAX_KEY_LENGTH
              + " characters: fit it with RecordKey.fittedTo(store.maxKeyLength()) first");
    }
  }

  /**
   * Builds a {@link DynamoDbIdempotencyStore}; {@link #build()} verifies (or creates) the table.
   */
  public static final class Builder {
    private DynamoDbClient client;
    private DynamoDbAsyncClient asyncClient;
    private Region region;
    private URI endpoint;
    private AwsCredentialsProvider credentials;
    private String table = DEFAULT_TABLE;
    private boolean createTable;
    private Duration timeout = DEFAULT_TIMEOUT;
    private Duration maxClockSkew = DEFAULT_MAX_CLOCK_SKEW;
    private Duration tableActiveWithin = DEFAULT_TABLE_ACTIVE_WITHIN;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * The application's clients, blocking and non-blocking, both on the same account and region;
     * the store uses them and leaves them open. Instead of {@link #region}, {@link #endpoint} and
     * {@link #credentials}.
     */
    public Builder clients(DynamoDbClient client, DynamoDbAsyncClient asyncClient) {
      this.client = Objects.requireNonNull(client, "client");
      this.asyncClient = Objects.requireNonNull(asyncClient, "asyncClient");
      return this;
    }

    /** The region of the clients the store makes; by default the SDK's region lookup. */
    public Builder region(Region region) {
      this.region = Objects.requireNonNull(region, "region");
      return this;
    }

    /** Another endpoint for the clients the store makes (a local DynamoDB); by default AWS's. */
    public Builder endpoint(URI endpoint) {
      this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
      return this;
    }

    /** Credentials for the clients the store makes; by default the SDK's credential chain. */
    public Builder credentials(AwsCredentialsProvider credentials) {
      this.credentials = Objects.requireNonNull(credentials, "credentials");
      return this;
    }

    /** The table; {@value DynamoDbIdempotencyStore#DEFAULT_TABLE} by default. */
    public Builder table(String table) {
      if (table == null || !TABLE_NAME.matcher(table).matches()) {
        throw new IllegalArgumentException(
            "table name '"
                + table
                + "' is not a DynamoDB table name: 3 to 255 of a-z, A-Z, 0-9, '_', '-', '.'");
      }
      this.table = table;
      return this;
    }

    /**
     * Whether {@link #build()} creates the table when it is missing (on-demand billing, TTL on);
     * {@code false} by default: a missing table is then reported.
     */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /** How long each operation may take, SDK retries included; 5 s by default. */
    public Builder timeout(Duration timeout) {
      this.timeout = positive(timeout, "timeout");
      return this;
    }

    /**
     * The largest difference between the clocks of any two hosts using the table, and between any
     * of them and the clock DynamoDB's TTL deletion reads; 1 s by default. A claim is taken over
     * only once its lease ended this long ago on the claimant's clock. See docs/stores/dynamodb.md
     * for what a larger skew does.
     */
    public Builder maxClockSkew(Duration maxClockSkew) {
      Objects.requireNonNull(maxClockSkew, "maxClockSkew");
      if (maxClockSkew.isNegative()) {
        throw new IllegalArgumentException("maxClockSkew must not be negative: " + maxClockSkew);
      }
      this.maxClockSkew = maxClockSkew;
      return this;
    }

    /** How long a table being created may take to become active; 2 minutes by default. */
    public Builder tableActiveWithin(Duration tableActiveWithin) {
      this.tableActiveWithin = positive(tableActiveWithin, "tableActiveWithin");
      return this;
    }

    /** The clock leases and ttls are measured with; the system clock by default. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive: " + d);
      }
      return d;
    }

    /**
     * Makes the store and verifies its table, creating it first when it is missing and {@link
     * #createTable} allows it.
     *
     * @throws IllegalArgumentException clients and region/endpoint/credentials both given, or a
     *     table of another layout
     * @throws IllegalStateException the table is missing and may not be created
     * @throws RuntimeException DynamoDB cannot be reached
     */
    public DynamoDbIdempotencyStore build() {
      boolean own = client == null;
      if (!own && (region != null || endpoint != null || credentials != null)) {
        throw new IllegalArgumentException(
            "clients(...) and region/endpoint/credentials are both set: configure the clients you"
                + " hand in, or let the store make its own");
      }
      DynamoDbClient sync = client;
      DynamoDbAsyncClient async = asyncClient;
      if (own) {
        DynamoDbClientBuilder s =
            DynamoDbClient.builder()
                .httpClientBuilder(
                    UrlConnectionHttpClient.builder()
                        .connectionTimeout(timeout)
                        .socketTimeout(timeout));
        DynamoDbAsyncClientBuilder a =
            DynamoDbAsyncClient.builder()
                .httpClientBuilder(
                    NettyNioAsyncHttpClient.builder()
                        .maxConcurrency(256)
                        .connectionTimeout(timeout)
                        .connectionAcquisitionTimeout(timeout));
        if (region != null) {
          s.region(region);
          a.region(region);
        }
        if (endpoint != null) {
          s.endpointOverride(endpoint);
          a.endpointOverride(endpoint);
        }
        if (credentials != null) {
          s.credentialsProvider(credentials);
          a.credentialsProvider(credentials);
        }
        sync = s.build();
        try {
          async = a.build();
        } catch (RuntimeException e) {
          sync.close();
          throw e;
        }
      }
      RecordRequests requests = new RecordRequests(table, clock, maxClockSkew, timeout);
      try {
        TableSetup.ensure(
            sync,
            table,
            createTable,
            tableActiveWithin,
            AwsRequestOverrideConfiguration.builder().apiCallTimeout(timeout).build());
      } catch (RuntimeException e) {
        if (own) {
          sync.close();
          async.close();
        }
        throw e;
      }
      return new DynamoDbIdempotencyStore(sync, async, own, requests, timeout);
    }
  }
}
