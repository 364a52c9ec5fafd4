/** A user's module: what a named module needs to use {@code @Idempotent}. */
module dev.idempotent.moduletests {
  requires dev.idempotent.core;
  requires dev.idempotent.memory;
  // Not needed by this code: here so that each published module is resolved on the module path in
  // the tests.
  requires dev.idempotent.redisson;
  requires dev.idempotent.jdbc;
  requires dev.idempotent.nats;
  requires dev.idempotent.micrometer;
  requires dev.idempotent.web;

  uses dev.idempotent.spi.IdempotencyStoreProvider;

  // The key expression reads Order.id() and the aspect reads the annotated method: by reflection,
  // from
  // dev.idempotent.core.
  opens dev.idempotent.moduletests to
      dev.idempotent.core;
}
