package dev.idempotent.spi;

import java.util.Objects;

/**
 * The answer to {@link IdempotencyStore#claim}: the caller now holds the key, or here is the record
 * that does.
 */
public final class ClaimResult {
  private static final ClaimResult ACQUIRED = new ClaimResult(true, false, null);
  private static final ClaimResult TOOK_OVER = new ClaimResult(true, true, null);

  private final boolean acquired;
  private final boolean tookOver;
  private final IdempotencyRecord existing;

  private ClaimResult(boolean acquired, boolean tookOver, IdempotencyRecord existing) {
    this.acquired = acquired;
    this.tookOver = tookOver;
    this.existing = existing;
  }

  /** The key was free (no record, or an expired completed record): the caller holds it now. */
  public static ClaimResult acquired() {
    return ACQUIRED;
  }

  /** The key was IN_PROGRESS under another owner whose lease had ended: the caller holds it now. */
  public static ClaimResult tookOver() {
    return TOOK_OVER;
  }

  /** The key is held or completed by someone else; nothing was written. */
  public static ClaimResult existing(IdempotencyRecord record) {
    return new ClaimResult(false, false, Objects.requireNonNull(record, "record"));
  }

  /** True when the caller's owner token now holds the key. */
  public boolean isAcquired() {
    return acquired;
  }

  /** True when the key was acquired by taking over a claim whose lease had ended. */
  public boolean isTakeover() {
    return tookOver;
  }

  /** The record that stopped the claim; {@code null} when {@link #isAcquired()}. */
  public IdempotencyRecord existing() {
    return existing;
  }

  @Override
  public String toString() {
    return acquired
        ? (tookOver ? "ClaimResult{tookOver}" : "ClaimResult{acquired}")
        : "ClaimResult{" + existing + "}";
  }
}
