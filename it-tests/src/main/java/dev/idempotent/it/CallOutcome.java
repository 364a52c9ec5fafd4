package dev.idempotent.it;

/**
 * What one call of the service got, as a worker reports it to the test: one tab-separated line.
 *
 * @param key the business key
 * @param kind what happened
 * @param digest {@link LedgerReceipt#digest()} of the result, or {@code -} when there was none
 * @param micros the call's latency
 * @param detail for {@link Kind#EXECUTED}: how the completion went ({@code recorded}, {@code
 *     fenced}, {@code failed}); for {@link Kind#OTHER} and {@link Kind#STORE_ERROR}: the exception
 */
public record CallOutcome(String key, Kind kind, String digest, long micros, String detail) {

  /** The kinds of outcome. */
  public enum Kind {
    /** The method body ran in this call. */
    EXECUTED,
    /** The recorded result came back; the body did not run. */
    REPLAYED,
    /** Rejected: the key was in progress elsewhere. */
    IN_PROGRESS,
    /** Rejected: a duplicate of a completed key. */
    DUPLICATE,
    /** The store failed or timed out; the body did not run (fail-closed). */
    STORE_ERROR,
    /** Anything else: always a failure of the test. */
    OTHER
  }

  public String toLine() {
    return key
        + '\t'
        + kind
        + '\t'
        + digest
        + '\t'
        + micros
        + '\t'
        + detail.replace('\t', ' ').replace('\n', ' ');
  }

  public static CallOutcome parse(String line) {
    String[] f = line.split("\t", 5);
    if (f.length != 5) {
      throw new IllegalArgumentException("not a call outcome line: " + line);
    }
    return new CallOutcome(f[0], Kind.valueOf(f[1]), f[2], Long.parseLong(f[3]), f[4]);
  }
}
