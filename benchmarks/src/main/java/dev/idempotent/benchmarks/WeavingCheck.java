package dev.idempotent.benchmarks;

import dev.idempotent.IdempotencyKeyMismatchException;

/**
 * Fails a benchmark's set-up unless the {@code @Idempotent} method really is woven: a repeat of a
 * key must get the recorded receipt, not run the body again with its new arguments.
 */
final class WeavingCheck {
  /** A woven method of {@link OrderService}. */
  @FunctionalInterface
  interface Submission {
    Receipt submit(String orderId, long amountCents);
  }

  private WeavingCheck() {}

  /**
   * Calls {@code method} twice with one key and different amounts; the second must replay the
   * first.
   */
  static void requireReplay(String name, Submission method, String key) {
    Receipt first = method.submit(key, 100);
    Receipt repeat = method.submit(key, 200);
    if (first.amountCents() != 100 || repeat.amountCents() != 100) {
      throw new IllegalStateException(
          name
              + " is not woven (or does not replay): a repeat of one key returned "
              + repeat
              + " after "
              + first
              + "; rebuild with mvn -pl benchmarks -am clean package -DskipTests");
    }
  }

  /**
   * A method with a payload check ({@code payload = "*"}): a repeat of a recorded key with another
   * amount must be refused as another payload.
   */
  static void requirePayloadChecked(
      String name, Submission method, String key, long recordedAmount) {
    Receipt repeat;
    try {
      repeat = method.submit(key, recordedAmount + 1);
    } catch (IdempotencyKeyMismatchException expected) {
      return;
    }
    throw new IllegalStateException(
        name
            + " is not woven (or does not check its payload): a repeat of a recorded key with"
            + " another amount returned "
            + repeat
            + "; rebuild with mvn -pl benchmarks -am clean package -DskipTests");
  }

  /** A recorded key must replay its recorded receipt. */
  static void requireRecorded(String name, Submission method, String key, long recordedAmount) {
    Receipt repeat = method.submit(key, recordedAmount + 1);
    if (repeat.amountCents() != recordedAmount) {
      throw new IllegalStateException(
          name + " did not replay the recorded receipt of a prepared key: got " + repeat);
    }
  }
}
