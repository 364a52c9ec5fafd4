package dev.idempotent.memory;

/**
 * The size bound of the memory store: its live completed records in the order they completed,
 * oldest first. The record completed longest ago is the one to evict, so a retry soon after its
 * first call is replayed however full the store is. (Caffeine's own bound admits by frequency: a
 * full cache would reject the newest records, whose retries are the likeliest.)
 *
 * <p>A list linked through the records themselves, so that adding and removing take a few pointer
 * writes and no hash lookup or allocation. Every method holds this object's monitor, which the
 * store takes inside the cache's per-key lock (never the other way round) and only for completions
 * and removals, not for claims or replays.
 *
 * <p>The evictions run after the completion that made them due (see {@link Evictions}); while they
 * are behind, up to {@link #slack()} more records are kept, and past that the completing thread
 * evicts the oldest itself, so the bound holds however far behind they are.
 */
final class CompletionOrder {
  /** The most completed records kept beyond the maximum size while their eviction waits. */
  static final long MAX_EVICTION_SLACK = 1024;

  /** What the completing thread does after {@link #add}. */
  enum Admission {
    /** Nothing: the order is within the maximum size. */
    WITHIN_BOUND,
    /** Queue an eviction run: the order is past the maximum size, within the slack. */
    EVICTION_DUE,
    /** Evict the oldest record now: the order is past the maximum size and the slack. */
    EVICT_NOW
  }

  private final long maximumSize;
  private final long slack;
  private MemoryRecord oldest;
  private MemoryRecord newest;
  private int size;

  /**
   * An empty order keeping {@code maximumSize} records, with a slack of {@code min(1024,
   * maximumSize / 64)} (at least 1).
   */
  CompletionOrder(long maximumSize) {
    if (maximumSize <= 0) {
      throw new IllegalArgumentException("maximumSize must be positive, was " + maximumSize);
    }
    this.maximumSize = maximumSize;
    this.slack = Math.min(MAX_EVICTION_SLACK, Math.max(1, maximumSize / 64));
  }

  long maximumSize() {
    return maximumSize;
  }

  /** How many records beyond the maximum size may wait for an eviction run. */
  long slack() {
    return slack;
  }

  /** Adds a record that just completed, as the newest; says what the completing thread does. */
  synchronized Admission add(MemoryRecord completed) {
    completed.older = newest;
    completed.newer = null;
    if (newest == null) {
      oldest = completed;
    } else {
      newest.newer = completed;
    }
    newest = completed;
    completed.ordered = true;
    size++;
    if (size > maximumSize + slack) {
      return Admission.EVICT_NOW;
    }
    return size > maximumSize ? Admission.EVICTION_DUE : Admission.WITHIN_BOUND;
  }

  /**
   * Takes the oldest record out of the order when it holds more than the maximum size, for the
   * caller to remove from the cache; {@code null} when it holds no more.
   */
  synchronized MemoryRecord pollOverflow() {
    if (size <= maximumSize) {
      return null;
    }
    MemoryRecord first = oldest;
    unlink(first);
    return first;
  }

  /** Whether the order holds more than the maximum size. */
  synchronized boolean isOverMaximum() {
    return size > maximumSize;
  }

  /**
   * Takes a record out of the order (expired, replaced once expired, deleted); does nothing when it
   * is not in it.
   */
  synchronized void remove(MemoryRecord record) {
    unlink(record);
  }

  synchronized int size() {
    return size;
  }

  /** Empties the order. */
  synchronized void clear() {
    for (MemoryRecord r = oldest; r != null; ) {
      MemoryRecord next = r.newer;
      r.older = null;
      r.newer = null;
      r.ordered = false;
      r = next;
    }
    oldest = null;
    newest = null;
    size = 0;
  }

  private void unlink(MemoryRecord r) {
    if (!r.ordered) {
      return;
    }
    if (r.older == null) {
      oldest = r.newer;
    } else {
      r.older.newer = r.newer;
    }
    if (r.newer == null) {
      newest = r.older;
    } else {
      r.newer.older = r.older;
    }
    r.older = null;
    r.newer = null;
    r.ordered = false;
    size--;
  }
}
