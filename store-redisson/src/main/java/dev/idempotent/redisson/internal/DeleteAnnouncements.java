package dev.idempotent.redisson.internal;

import dev.idempotent.spi.DeleteAnnouncingStore.DeleteListener;
import dev.idempotent.spi.DeleteAnnouncingStore.Subscription;
import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.StatusListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store-wide announcements of administrative deletes, for near caches in every instance: the
 * delete script publishes {@code <scope length>:<scope><key>} on {@code <prefix>#deleted} with a
 * plain {@code PUBLISH} (in a Redis Cluster it reaches every node, as it must: the subscribers of
 * all instances may be connected to any of them). Deletes are rare administrative operations, so
 * the broadcast costs nothing on the call path.
 */
public final class DeleteAnnouncements {
  private static final Logger log = LoggerFactory.getLogger(DeleteAnnouncements.class);

  private final RedissonClient redisson;
  private final String channel;

  public DeleteAnnouncements(RedissonClient redisson, RecordNames names) {
    this.redisson = redisson;
    this.channel = names.deletesChannel();
  }

  /** The announcement of the delete of {@code key}: {@code <scope length>:<scope><key>}, UTF-8. */
  public static byte[] announcement(RecordKey key) {
    return (key.scope().length() + ":" + key.scope() + key.key()).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The key of an announcement {@code <scope length>:<scope><key>}, or {@code null} when it is not
   * one.
   */
  public static RecordKey announced(String message) {
    int colon = message.indexOf(':');
    try {
      int scopeLength = Integer.parseInt(message.substring(0, colon));
      int keyStart = colon + 1 + scopeLength;
      return RecordKey.of(message.substring(colon + 1, keyStart), message.substring(keyStart));
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * Subscribes {@code listener} to the deletes announced on the channel. Redisson subscribes again
   * after a lost connection; every (re)subscription is reported as {@link
   * DeleteListener#deletesMayHaveBeenMissed()}, since messages published meanwhile are lost.
   */
  public Subscription subscribe(DeleteListener listener) {
    RTopic topic = redisson.getTopic(channel, org.redisson.client.codec.StringCodec.INSTANCE);
    int statusId =
        topic.addListener(
            new StatusListener() {
              @Override
              public void onSubscribe(String channel) {
                listener.deletesMayHaveBeenMissed();
              }

              @Override
              public void onUnsubscribe(String channel) {
                listener.deletesMayHaveBeenMissed();
              }
            });
    int messageId;
    try {
      messageId =
          topic.addListener(
              String.class,
              (from, message) -> {
                RecordKey deleted = announced(message);
                if (deleted == null) {
                  log.warn(
                      "unreadable announcement of a delete on {}; every near-cache entry is"
                          + " dropped",
                      from);
                  listener.deletesMayHaveBeenMissed();
                } else {
                  listener.deleted(deleted);
                }
              });
    } catch (RuntimeException e) {
      topic.removeListener(statusId);
      throw e;
    }
    AtomicBoolean ended = new AtomicBoolean();
    return () -> {
      if (ended.compareAndSet(false, true)) {
        topic.removeListener(statusId, messageId);
      }
    };
  }
}
