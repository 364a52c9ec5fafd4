package dev.idempotent.benchmarks;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Per-thread key sources of the benchmarks. */
public final class KeyStreams {
  /**
   * Distinguishes this JVM (one JMH fork) from earlier ones, whose records may still be in a shared
   * backend.
   */
  private static final String RUN =
      Long.toString(System.currentTimeMillis(), 36)
          + Long.toString(System.nanoTime() & 0xFFFFF, 36);

  private static final AtomicInteger THREADS = new AtomicInteger();

  private KeyStreams() {}

  /** Every call gets a key never used before: a per-thread prefix and counter. */
  @State(Scope.Thread)
  public static class FreshKeys {
    private String prefix;
    private String ownerPrefix;
    private long next;

    @Setup(Level.Trial)
    public void setUp() {
      int thread = THREADS.incrementAndGet();
      prefix = "order-" + RUN + "-" + thread + "-";
      ownerPrefix = "owner-" + RUN + "-" + thread + ":";
    }

    /** The next fresh key. */
    public String next() {
      return prefix + next++;
    }

    /** An owner token for the baselines that need one, as cheap to make as the library's. */
    public String owner() {
      return ownerPrefix.concat(Long.toString(next, 36));
    }
  }

  /** Cycles through the recorded keys of a replay benchmark, each thread from its own offset. */
  @State(Scope.Thread)
  public static class ReplayCursor {
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
      next = THREADS.incrementAndGet() * 131;
    }

    /** The next recorded key. */
    public String next(String[] keys) {
      return keys[nextIndex(keys.length)];
    }

    /** The index of the next recorded key of {@code count} (a power of two). */
    public int nextIndex(int count) {
      return next++ & (count - 1);
    }
  }

  /** {@code count} replay keys unique to this JVM. */
  static String[] replayKeys(int count) {
    String[] keys = new String[count];
    for (int i = 0; i < count; i++) {
      keys[i] = "replay-" + RUN + "-" + i;
    }
    return keys;
  }
}
