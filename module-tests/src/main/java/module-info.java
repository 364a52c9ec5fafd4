/** A user's module: what a named module needs to use {@code @Idempotent}. */
module dev.idempotent.moduletests {
  requires dev.idempotent.core;
  requires dev.idempotent.memory;

  // The key expression reads Order.id() and the aspect reads the annotated method: by reflection, from
  // dev.idempotent.core.
  opens dev.idempotent.moduletests to dev.idempotent.core;
}
