/**
 * The contract kit: abstract JUnit 5 tests every idempotency store passes. Open, so that JUnit can
 * run the inherited test methods of a store's subclass.
 */
open module dev.idempotent.tck {
  requires transitive dev.idempotent.core;
  requires transitive org.junit.jupiter.api;
  requires org.assertj.core;
  requires static reactor.blockhound; // NonBlockingPathCheck only
  requires static reactor.core;

  exports dev.idempotent.tck;
}
