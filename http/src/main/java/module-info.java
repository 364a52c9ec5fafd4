/**
 * The HTTP protocol of idempotent requests, independent of any container ({@code
 * dev.idempotent.http}): rules, the {@code Idempotency-Key} header, submit tokens, recorded
 * responses and problem details. The servlet and WebFlux filters are adapters over it.
 */
module dev.idempotent.http {
  requires transitive dev.idempotent.core;
  requires org.slf4j;

  exports dev.idempotent.http;
  exports dev.idempotent.http.internal to
      dev.idempotent.web;
}
