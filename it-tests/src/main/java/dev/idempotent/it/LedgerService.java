package dev.idempotent.it;

import dev.idempotent.Idempotent;
import dev.idempotent.OnInProgress;
import java.util.UUID;

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
