package dev.idempotent.tck;

/**
 * One group of the kit's checks: test methods (JUnit runs an interface's default methods) that
 * exercise the store of the running test through its {@link ContractFixture}. {@link
 * IdempotencyStoreContract} implements every group and hands each the same fixture.
 */
interface ContractGroup {

  /** The running test's store, scope and clock. */
  ContractFixture fixture();
}
