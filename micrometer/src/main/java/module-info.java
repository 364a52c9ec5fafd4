/** Micrometer for idempotent calls: an observation per call, and meters. */
module dev.idempotent.micrometer {
  requires transitive dev.idempotent.core;
  requires transitive micrometer.core;
  requires transitive micrometer.observation;
  requires micrometer.commons;
  requires org.slf4j;

  exports dev.idempotent.micrometer;
}
