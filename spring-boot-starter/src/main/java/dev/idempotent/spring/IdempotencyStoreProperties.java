package dev.idempotent.spring;

/**
 * The typed properties of one store module, bound under {@code idempotent.<store name>} by that
 * store's auto-configuration. Each property is one of the settings the store's {@code
 * IdempotencyStoreProvider#settings()} defines (same name, same type, same description); the
 * starter hands the bound values to the store module as they are, and its tests check the
 * properties, their metadata and the docs against the definitions (docs/stores/writing-a-store.md).
 */
public interface IdempotencyStoreProperties {
  /** The store's name, as {@code idempotent.store} names it and its provider's {@code name()}. */
  String storeName();
}
