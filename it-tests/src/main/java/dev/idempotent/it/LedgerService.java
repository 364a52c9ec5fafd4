package dev.idempotent.it;

import dev.idempotent.Idempotent;
import dev.idempotent.OnInProgress;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The service under test, woven by {@code aspectj-maven-plugin} exactly as a user's code is. Each
 * method appends one entry to a {@link Ledger} outside the JVM and returns a {@link LedgerReceipt};
 * the methods differ only in their lease. Keys are {@code <run id>:<key>}, so runs never share
 * records.
 */
public class LedgerService {
  /** Where a running call can be held, to crash or pause its worker at a chosen moment. */
  public enum Stage {
    BEFORE_SIDE_EFFECT,
    AFTER_SIDE_EFFECT
  }

  /** Called by every execution at each {@link Stage}; the default does nothing. */
  @FunctionalInterface
  public interface Checkpoint {
    void reached(Stage stage, String key);

    Checkpoint NONE = (stage, key) -> {};
  }

  private static final ThreadLocal<Boolean> EXECUTED_HERE = ThreadLocal.withInitial(() -> false);

  /** The ids of the reactive calls whose body ran, until their caller takes the mark. */
  private static final ConcurrentHashMap<String, Boolean> EXECUTED_CALLS =
      new ConcurrentHashMap<>();

  private final Ledger ledger;
  private final String worker;
  private volatile Checkpoint checkpoint = Checkpoint.NONE;

  public LedgerService(Ledger ledger, String worker) {
    this.ledger = ledger;
    this.worker = worker;
  }

  public void checkpoint(Checkpoint checkpoint) {
    this.checkpoint = checkpoint;
  }

  /** The load method: a 10 s lease, in-progress repeats are rejected. */
  @Idempotent(scope = "it.ledger", key = "#runId + ':' + #key", lease = "10s", ttl = "30m")
  public LedgerReceipt apply(String runId, String key) {
    return execute(runId, key);
  }

  /** For the crash tests: a 2 s lease, so a dead holder's claim frees itself quickly. */
  @Idempotent(scope = "it.ledger.lease2s", key = "#runId + ':' + #key", lease = "2s", ttl = "30m")
  public LedgerReceipt applyWithTwoSecondLease(String runId, String key) {
    return execute(runId, key);
  }

  /** For the stale-holder, outage and stall tests: a 1 s lease. */
  @Idempotent(scope = "it.ledger.lease1s", key = "#runId + ':' + #key", lease = "1s", ttl = "30m")
  public LedgerReceipt applyWithOneSecondLease(String runId, String key) {
    return execute(runId, key);
  }

  /** For the storm tests: repeats that arrive while the first call runs wait for its result. */
  @Idempotent(
      scope = "it.ledger.wait",
      key = "#runId + ':' + #key",
      lease = "10s",
      ttl = "30m",
      onInProgress = OnInProgress.WAIT,
      waitTimeout = "30s")
  public LedgerReceipt applyWaiting(String runId, String key) {
    return execute(runId, key);
  }

  /**
   * The load method as a {@code Mono}: calling assembles, subscribing claims; the body runs on
   * Reactor's bounded-elastic threads (the ledger's client blocks). {@code callId} is not part of
   * the key: it marks the call whose body ran ({@link #takeExecutedCall}).
   */
  @Idempotent(scope = "it.ledger.mono", key = "#runId + ':' + #key", lease = "10s", ttl = "30m")
  public Mono<LedgerReceipt> applyReactive(String runId, String key, String callId) {
    return Mono.fromCallable(
            () -> {
              LedgerReceipt receipt = execute(runId, key);
              EXECUTED_CALLS.put(callId, true);
              return receipt;
            })
        .subscribeOn(Schedulers.boundedElastic());
  }

  /** Whether the body of the reactive call {@code callId} ran; takes the mark. */
  public static boolean takeExecutedCall(String callId) {
    return EXECUTED_CALLS.remove(callId) != null;
  }

  private LedgerReceipt execute(String runId, String key) {
    EXECUTED_HERE.set(true);
    String nonce = UUID.randomUUID().toString();
    checkpoint.reached(Stage.BEFORE_SIDE_EFFECT, key);
    ledger.append(runId, key, worker, nonce);
    checkpoint.reached(Stage.AFTER_SIDE_EFFECT, key);
    return new LedgerReceipt(key, worker, nonce, System.currentTimeMillis());
  }

  /** Whether the method body ran on this thread since the last call; clears the mark. */
  static boolean takeExecutedMark() {
    boolean ran = EXECUTED_HERE.get();
    EXECUTED_HERE.set(false);
    return ran;
  }
}
