/**
 * The servlet adapter of the HTTP protocol ({@code dev.idempotent.http}): {@link
 * dev.idempotent.web.IdempotencyFilter}, a {@code jakarta.servlet.Filter} for any Servlet 6
 * container and Spring MVC. The rules (which requests are protected, in which scope, what a repeat
 * gets) are the protocol's; the filter turns a request into what the protocol asks for, runs the
 * chain into a response it holds (also across asynchronous requests), and writes the answer back.
 *
 * <pre>{@code
 * HttpIdempotency protocol = HttpIdempotency.builder()
 *     .rule(IdempotencyRule.builder("orders-api").paths("/api/*").key(Key.REQUIRED).build())
 *     .build();
 * IdempotencyFilter filter = IdempotencyFilter.builder(protocol).build();
 * }</pre>
 *
 * In {@code web.xml}: {@code <filter-class>dev.idempotent.web.IdempotencyFilter</filter-class>}
 * with {@code <async-supported>true</async-supported>}, the {@code REQUEST} and {@code ASYNC}
 * dispatchers, and the protocol's settings as init-parameters ({@code rules}, {@code
 * rules.<name>.paths}, {@code rules.<name>.key} ...), over the same settings in {@code
 * idempotent.web.*} properties. See docs/web.md.
 */
package dev.idempotent.web;
