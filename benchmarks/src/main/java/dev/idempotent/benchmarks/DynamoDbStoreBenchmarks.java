package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.AMOUNT;
import static dev.idempotent.benchmarks.BenchmarkSettings.FRESH_TTL;
import static dev.idempotent.benchmarks.BenchmarkSettings.LEASE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REPLAY_KEYS;
import static dev.idempotent.benchmarks.BenchmarkSettings.RETAINED_TTL;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.dynamodb.DynamoDbIdempotencyStore;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A woven call on the DynamoDB store against the hand-written floor ({@link DynamoDbFloor}) through
 * the same blocking client and table: fresh keys (claim, body, completion) and replays. The woven
 * methods are the ones without a payload check, the floor is lean (no fingerprint, no codec, no
 * expiry). DynamoDB is found through {@code IDEMPOTENT_DYNAMODB_URL} (default {@code
 * http://127.0.0.1:4567}, dynalite); the table {@value #TABLE} is created when missing.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class DynamoDbStoreBenchmarks {
  static final String TABLE = "bench-idempotency";

  private DynamoDbClient client;
  private DynamoDbAsyncClient asyncClient;
  private DynamoDbIdempotencyStore store;
  private final OrderService service = new OrderService();
  private DynamoDbFloor freshFloor;
  private DynamoDbFloor retainedFloor;
  private final String[] replayKeys = KeyStreams.replayKeys(REPLAY_KEYS);

  @Setup(Level.Trial)
  public void setUp() {
    URI endpoint = URI.create(BenchmarkSettings.address(BenchmarkSettings.DYNAMODB_URL_VARIABLE));
    StaticCredentialsProvider credentials =
        StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"));
    client =
        DynamoDbClient.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .credentialsProvider(credentials)
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .build();
    asyncClient =
        DynamoDbAsyncClient.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .credentialsProvider(credentials)
            .httpClientBuilder(NettyNioAsyncHttpClient.builder())
            .build();
    store =
        DynamoDbIdempotencyStore.builder()
            .clients(client, asyncClient)
            .table(TABLE)
            .createTable(true)
            .build();
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).build());
    WeavingCheck.requireReplay(
        "OrderService.submit", service::submit, "weaving-check-" + System.nanoTime());
    freshFloor = new DynamoDbFloor(client, TABLE, LEASE, FRESH_TTL);
    retainedFloor = new DynamoDbFloor(client, TABLE, LEASE, RETAINED_TTL);
    for (int i = 0; i < replayKeys.length; i++) {
      service.submitRetained(replayKeys[i], AMOUNT);
      retainedFloor.submit(replayKeys[i], "setup-" + i, AMOUNT);
    }
    WeavingCheck.requireRecorded(
        "OrderService.submitRetained", service::submitRetained, replayKeys[0], AMOUNT);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Idempotency.reset();
    store.close();
    client.close();
    asyncClient.close();
  }

  /** Fresh key, ours: a woven call with a key never seen before. */
  @Benchmark
  public Receipt freshKeyWoven(KeyStreams.FreshKeys keys) {
    return service.submit(keys.next(), AMOUNT);
  }

  /** Fresh key, the floor: conditional {@code PutItem}, body, conditional {@code UpdateItem}. */
  @Benchmark
  public Receipt freshKeyFloor(KeyStreams.FreshKeys keys) {
    return freshFloor.submit(keys.next(), keys.owner(), AMOUNT);
  }

  /** Replay, ours: a woven call of a completed key. */
  @Benchmark
  public Receipt replayWoven(KeyStreams.ReplayCursor cursor) {
    return service.submitRetained(cursor.next(replayKeys), AMOUNT);
  }

  /** Replay, the floor: one strongly consistent {@code GetItem}. */
  @Benchmark
  public Receipt replayFloor(KeyStreams.ReplayCursor cursor) {
    return retainedFloor.replay(cursor.next(replayKeys));
  }
}
