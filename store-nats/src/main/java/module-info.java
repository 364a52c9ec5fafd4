/** The idempotency store on a NATS JetStream key-value bucket. */
module dev.idempotent.nats {
  requires transitive dev.idempotent.core;
  requires transitive io.nats.jnats;
  requires org.slf4j;

  exports dev.idempotent.nats;

  provides dev.idempotent.spi.IdempotencyStoreProvider with
      dev.idempotent.nats.internal.NatsStoreProvider;
}
