package dev.idempotent.spi;

/**
 * An optional capability of an {@link IdempotencyStore} whose backend is shared by several
 * application instances: it tells every instance when a record is deleted administratively ({@link
 * IdempotencyStore#delete}), by any of them. The near cache of completed outcomes subscribes to it,
 * so that a record deleted in one instance stops being replayed from memory in all of them. A store
 * that cannot announce deletes simply does not implement it; the near cache then bounds how long
 * another instance may keep a deleted record with its maximum age.
 *
 * <p>The Redis store implements it with one store-wide pub/sub channel. Delivery is asynchronous (a
 * listener may hear of a delete a little after it happened) and, on a broken connection, not
 * guaranteed: a store that may have missed announcements (it lost and re-established its
 * subscription) says so with {@link DeleteListener#deletesMayHaveBeenMissed()}.
 */
public interface DeleteAnnouncingStore {

  /**
   * Calls {@code listener} for every administrative delete of a record in this store's backend,
   * made through any store instance on it (this one included), until the returned subscription is
   * closed. Listeners are called on a thread of the store's own and must return quickly.
   *
   * @throws RuntimeException when the backend cannot be subscribed to now
   */
  Subscription subscribeToDeletes(DeleteListener listener);

  /** Receives the announcements of {@link #subscribeToDeletes}. */
  interface DeleteListener {
    /** The record of {@code key} (as the store holds it: fitted to its key length) was deleted. */
    void deleted(RecordKey key);

    /**
     * Announcements may have been lost (the subscription was interrupted and is back): forget what
     * you kept.
     */
    void deletesMayHaveBeenMissed();
  }

  /** Ends a subscription; closing twice does nothing. */
  interface Subscription extends AutoCloseable {
    @Override
    void close();
  }
}
