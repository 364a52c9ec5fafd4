/**
 * The Spring WebFlux filter: {@code Idempotency-Key} with whole-response replay, and submit tokens,
 * without blocking the event loop.
 */
module dev.idempotent.webflux {
  requires transitive dev.idempotent.http;
  requires transitive spring.web;
  requires transitive spring.core;
  requires transitive reactor.core;
  requires transitive org.reactivestreams;
  requires org.slf4j;

  exports dev.idempotent.webflux;
}
