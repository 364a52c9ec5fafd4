package dev.idempotent.spi;

import java.util.Objects;

/**
 * A claim its holder still runs under: the record key and the owner token the claim was made with.
 * What {@link IdempotencyStore#renewAll} renews.
 *
 * @param key the record key, fitted to the store's {@link IdempotencyStore#maxKeyLength()}
 * @param ownerToken the owner token of the claim
 */
public record HeldClaim(RecordKey key, String ownerToken) {
  public HeldClaim {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
  }
}
