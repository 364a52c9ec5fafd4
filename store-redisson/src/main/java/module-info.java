/** The idempotency store on Redis through Redisson. */
module dev.idempotent.redisson {
  requires transitive dev.idempotent.core;
  requires transitive redisson;
  requires org.slf4j;

  exports dev.idempotent.redisson;

  provides dev.idempotent.spi.IdempotencyStoreProvider with
      dev.idempotent.redisson.internal.RedissonStoreProvider;
}
