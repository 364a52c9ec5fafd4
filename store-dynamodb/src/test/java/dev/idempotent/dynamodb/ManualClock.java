package dev.idempotent.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves: what a host's clock reads, skew included. */
final class ManualClock extends Clock {
  private volatile long millis;

  ManualClock(long millis) {
    this.millis = millis;
  }

  void advance(Duration d) {
    millis += d.toMillis();
  }

  void set(long millis) {
    this.millis = millis;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
