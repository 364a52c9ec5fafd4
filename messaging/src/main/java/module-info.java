/**
 * The protocol of idempotent message consumers, independent of any broker ({@code
 * dev.idempotent.messaging}): the key of a message, one run per key, and the outcome an adapter
 * turns into an acknowledgement, a replay or a hand-back to the broker.
 */
module dev.idempotent.messaging {
  requires transitive dev.idempotent.core;
  requires org.slf4j;

  exports dev.idempotent.messaging;
}
