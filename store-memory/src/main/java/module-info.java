/** The in-process idempotency store on Caffeine. */
module dev.idempotent.memory {
  requires transitive dev.idempotent.core;
  requires com.github.benmanes.caffeine;
  requires org.slf4j;

  exports dev.idempotent.memory;

  provides dev.idempotent.spi.IdempotencyStoreProvider with
      dev.idempotent.memory.internal.MemoryStoreProvider;
}
