package dev.idempotent.messaging.kafka;

import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.messaging.MessageIdempotency;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The consumer's protocol of each topic a listener reads, built once per topic: the {@link
 * MessageIdempotency} the application's function gives, and the policy a claim settled by the
 * adapter itself runs under (the same scope, settings and wait bound).
 */
final class TopicScopes {
  /** The protocol of one topic. */
  record Scope(MessageIdempotency idempotency, IdempotencyPolicy policy) {}

  private final Function<String, MessageIdempotency> idempotencyOfTopic;
  private final Map<String, Scope> scopes = new ConcurrentHashMap<>();

  TopicScopes(Function<String, MessageIdempotency> idempotencyOfTopic) {
    this.idempotencyOfTopic = Objects.requireNonNull(idempotencyOfTopic, "idempotencyOfTopic");
  }

  Scope of(String topic) {
    Scope scope = scopes.get(topic);
    return scope != null ? scope : scopes.computeIfAbsent(topic, this::build);
  }

  private Scope build(String topic) {
    MessageIdempotency idempotency =
        Objects.requireNonNull(
                idempotencyOfTopic.apply(topic), () -> "no MessageIdempotency for topic " + topic)
            .withAdapter("kafka");
    return new Scope(idempotency, idempotency.policy());
  }
}
