/**
 * The web layer: {@link dev.idempotent.web.IdempotencyFilter}, a {@code jakarta.servlet.Filter} for
 * any Servlet 6 container (Tomcat 10.1/11, Jetty 12) and Spring MVC.
 *
 * <h2>Registering the filter</h2>
 *
 * Plain servlet container (programmatically, e.g. in a {@code ServletContainerInitializer}):
 *
 * <pre>{@code
 * IdempotencyFilter filter = IdempotencyFilter.builder()
 *     .idempotency(Idempotency.install(config))   // default: Idempotency.global()
 *     .keyRequired("/api/*")                      // 400 without Idempotency-Key there
 *     .submitTokenPaths("/orders")                // forms posting here need a submit token
 *     .build();
 * context.addFilter("idempotency", filter).addMappingForUrlPatterns(null, false, "/*");
 * }</pre>
 *
 * Spring MVC / Spring Boot: an ordinary bean, {@code @Bean Filter idempotencyFilter() { return
 * IdempotencyFilter.builder()...build(); }}, or a {@code FilterRegistrationBean<IdempotencyFilter>}
 * to choose its URL patterns and order. {@code web.xml}: {@code
 * <filter-class>dev.idempotent.web.IdempotencyFilter</filter-class>} with init-parameters named as
 * in {@link dev.idempotent.web.IdempotencyFilter#SETTINGS} ({@code methods}, {@code
 * key-required-paths}, {@code submit-token-paths}, {@code ttl}, {@code retry-after}, …); the same
 * settings are read from {@code idempotent.web.*} properties ({@code idempotent.properties} or
 * system properties), init-parameters winning.
 *
 * <h2>Submit tokens in a form</h2>
 *
 * The form's page issues a token for the scene the form posts to (by default the submit's path) and
 * renders it in the hidden field {@code _submit_token} (or a client sends it in the header {@code
 * Submit-Token}; both names are configurable):
 *
 * <pre>{@code
 * String token = IdempotencyFilter.of(request).issueSubmitToken(request, "/orders");
 * out.print("<input type=\"hidden\" name=\"_submit_token\" value=\"" + token + "\">");
 * }</pre>
 *
 * The token is bound to the user (principal name, else the HTTP session, created when the token is
 * issued) and valid for 15 minutes. A POST to {@code /orders} runs once per token; a repeat gets
 * the first response (a post/redirect/get {@code 303} replays as the same redirect); a 4xx/5xx
 * answer does not use the token up.
 *
 * <h2>Headers and statuses</h2>
 *
 * Request: {@code Idempotency-Key} ({@link dev.idempotent.web.IdempotencyFilter#KEY_HEADER}).
 * Replays carry {@code Idempotent-Replayed: true} ({@link
 * dev.idempotent.web.IdempotencyFilter#REPLAYED_HEADER}). The filter's own answers are {@code
 * application/problem+json}: 400 (key invalid or missing, submit token missing or not valid), 409
 * with {@code Retry-After} (in progress; already submitted), 413 (body too large), 422 (key reused
 * with another request), 503 with {@code Retry-After} (store unavailable, fail-closed).
 */
package dev.idempotent.web;
