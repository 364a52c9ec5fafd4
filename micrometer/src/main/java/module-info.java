/** Micrometer meters for idempotent calls. */
module dev.idempotent.micrometer {
  requires transitive dev.idempotent.core;
  requires transitive micrometer.core;
  requires org.slf4j;

  exports dev.idempotent.micrometer;
}
