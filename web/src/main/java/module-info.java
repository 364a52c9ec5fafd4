/** The servlet filter: {@code Idempotency-Key} with whole-response replay, and submit tokens. */
module dev.idempotent.web {
  requires transitive dev.idempotent.http;
  requires transitive jakarta.servlet;
  requires org.slf4j;

  exports dev.idempotent.web;
}
