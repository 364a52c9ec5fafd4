/**
 * The Spring WebFlux adapter of the HTTP protocol ({@code dev.idempotent.http}): {@link
 * dev.idempotent.webflux.IdempotencyWebFilter}, a {@code WebFilter} for Reactor Netty and any other
 * server WebFlux runs on. The rules (which requests are protected, in which scope, what a repeat
 * gets) are the protocol's, the same the servlet filter adapts; the filter reads the request body
 * up to the rule's limit, runs the chain into a response it holds, and writes the answer back, on
 * the store's non-blocking face.
 *
 * <pre>{@code
 * HttpIdempotency protocol = HttpIdempotency.builder()
 *     .rule(IdempotencyRule.builder("orders-api").paths("/api/*").key(Key.REQUIRED).build())
 *     .build();
 * WebFilter filter = IdempotencyWebFilter.builder(protocol).build();
 * }</pre>
 *
 * See docs/web.md.
 */
package dev.idempotent.webflux;
