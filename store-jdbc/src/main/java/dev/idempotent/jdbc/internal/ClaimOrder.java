package dev.idempotent.jdbc.internal;

/**
 * Which statement a claim sends first: the fresh-key insert or a read of the key's row. Either is
 * the whole claim when it guesses right (an insert that wins, a read that finds a row), and costs
 * one statement more when it guesses wrong (an insert that finds the key taken is followed by the
 * read, a read that finds nothing by the insert). The answer is the same either way: a read that
 * finds a row tells what the insert would have found.
 *
 * <p>{@link #ADAPTIVE} learns per scope from the claims before it: a scope whose recent claims
 * mostly found the key's row (retries, redeliveries, double submits) reads first, one whose recent
 * claims mostly inserted (each call a new key) inserts first. Each scope id maps to one of {@value
 * #SLOTS} counters that move by one per claim between -{@value #LIMIT} and {@value #LIMIT}, so a
 * change of mix turns the order within a few claims, a lone repeat does not, and the memory is
 * fixed whatever the number of scopes (two scopes that share a counter share their order). The
 * counters are hints, updated without synchronisation: a lost update only delays a turn.
 */
public enum ClaimOrder {
  /** Learned per scope, starting with the insert. */
  ADAPTIVE,
  /** Always the insert first. */
  INSERT_FIRST,
  /** Always the read first. */
  READ_FIRST;

  static final int SLOTS = 256;
  static final int LIMIT = 8;

  /** The hint of one store: a counter per slot, positive where reading first pays. */
  public Learned learned() {
    return new Learned(this);
  }

  /** One store's counters. */
  public static final class Learned {
    private final ClaimOrder order;
    private final int[] found = new int[SLOTS];

    private Learned(ClaimOrder order) {
      this.order = order;
    }

    /** Whether a claim in the scope of {@code scopeId} reads the key's row first. */
    public boolean readFirst(long scopeId) {
      return switch (order) {
        case INSERT_FIRST -> false;
        case READ_FIRST -> true;
        case ADAPTIVE -> found[slot(scopeId)] > 0;
      };
    }

    /** Counts a claim in the scope of {@code scopeId} that found the key's row, or inserted it. */
    public void claimed(long scopeId, boolean foundRow) {
      int slot = slot(scopeId);
      int n = found[slot];
      if (foundRow ? n < LIMIT : n > -LIMIT) {
        found[slot] = foundRow ? n + 1 : n - 1;
      }
    }
  }

  /** The counter of the scope {@code scopeId}. */
  public static int slot(long scopeId) {
    return (int) (scopeId ^ (scopeId >>> 32)) & (SLOTS - 1);
  }
}
