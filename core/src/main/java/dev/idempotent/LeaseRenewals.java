package dev.idempotent;

import dev.idempotent.internal.LeaseRenewer;
import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;

/**
 * How the renewal of running calls' claims keeps up, per store: the figures an operator alerts on
 * before a lease can end under a call that still runs (then another caller could take its key over
 * and run the method a second time).
 *
 * <p>A store is named as {@link Idempotent#store()} names it ({@code default} for the default
 * store); two different store objects under one name are told apart as {@code name#2}, {@code
 * name#3}; a store object registered under several names shows under the one its first claim used.
 * The figures are refreshed every 50 ms by the renewer and are zero for a store that holds no
 * claim. The {@code idempotent-micrometer} module binds them as gauges ({@code
 * idempotent.lease.renewal.lag} and {@code idempotent.lease.held}, tagged {@code store}).
 */
public final class LeaseRenewals {
  private LeaseRenewals() {}

  /**
   * How late the most overdue renewal of {@code store} is: zero while every claim is renewed by the
   * time it is due (a third of its lease after its last renewal). A claim's lease ends when its lag
   * reaches two thirds of the lease; the renewer logs a WARN once a lag reaches a sixth of it (the
   * claim has gone half its lease unrenewed). Alert well below a third of the lease.
   */
  public static Duration lag(String store) {
    return Duration.ofNanos(LeaseRenewer.shared().lagNanos(store));
  }

  /** How many claims of running calls this JVM holds, and renews, in {@code store}. */
  public static int heldClaims(String store) {
    return LeaseRenewer.shared().heldClaims(store);
  }

  /** The names of the stores this JVM has held claims in. */
  public static Set<String> stores() {
    return LeaseRenewer.shared().storeNames();
  }

  /**
   * Calls {@code newStore} with the name of every store in {@link #stores()} now, and later with
   * each store that holds its first claim (from the renewer's thread; it must return quickly).
   * Close the answer to stop.
   */
  public static AutoCloseable onStore(Consumer<String> newStore) {
    return LeaseRenewer.shared().onStore(newStore);
  }
}
