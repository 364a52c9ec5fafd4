package dev.idempotent;

/**
 * A monotonic clock in nanoseconds, as {@link System#nanoTime()}. Injected through {@link
 * IdempotencyConfig} and the in-process store so that tests of leases, ttls and wait timeouts
 * advance a fake clock instead of sleeping.
 */
@FunctionalInterface
public interface TimeSource {
  long nanoTime();

  /** {@link System#nanoTime()}. */
  static TimeSource system() {
    return System::nanoTime;
  }
}
