package dev.idempotent.webflux;

import dev.idempotent.http.ApplicationResponse;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.HttpProblem;
import dev.idempotent.http.HttpResult;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.http.RecordedResponse;
import dev.idempotent.webflux.internal.BufferedExchange;
import dev.idempotent.webflux.internal.ExchangeResponseCapture;
import dev.idempotent.webflux.internal.RequestBody;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.server.WebSession;
import org.springframework.web.util.UriUtils;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

/**
 * The Spring WebFlux adapter of {@link HttpIdempotency}: a {@link WebFilter} with the same HTTP
 * contract as the servlet filter ({@code Idempotency-Key}, 400/409/422, {@code
 * Idempotent-Replayed}, problem+json, body limits, callers kept apart, submit tokens), because the
 * rules are the protocol's and one conformance suite runs against both.
 *
 * <pre>{@code
 * HttpIdempotency protocol = HttpIdempotency.builder()
 *     .idempotency(Idempotency.install(config))
 *     .rule(IdempotencyRule.builder("orders-api").paths("/api/*").key(Key.REQUIRED).build())
 *     .build();
 * WebHttpHandlerBuilder.webHandler(handler)
 *     .filter(IdempotencyWebFilter.builder(protocol).build())
 *     .build();
 * }</pre>
 *
 * <h2>A protected request</h2>
 *
 * The caller is resolved first (by default the exchange's principal), then the body is read, at
 * most the rule's limit: a {@code Content-Length} over it, or a body that passes it while it is
 * read, is answered 413 and the rest is not read. The protocol runs on the store's non-blocking
 * face ({@link HttpIdempotency#executeDeferred}): no step blocks the event loop. The application
 * sees the body again (as often as it reads it, and through {@code getFormData()} and {@code
 * getMultipartData()}) and writes into a response the filter holds: its body, up to the rule's
 * limit, is kept until the exchange completes, then recorded and sent (or, over the limit, sent as
 * it is written and not recorded). A repeat gets the recorded response with {@code
 * Idempotent-Replayed: true}.
 *
 * <p>The application runs on the thread that completes the claim: the caller's for the memory
 * store, a thread of the store's client (Redisson's) otherwise, as with any Reactor publisher that
 * completes there; blocking work belongs on a scheduler of its own, as everywhere in WebFlux. The
 * subscriber's Reactor context (security context, observations) is passed to the application. Once
 * the application runs, a client that goes away does not cancel it: it runs to its end and is
 * recorded, so the client's retry replays it.
 *
 * <p>Immutable and thread-safe.
 */
public final class IdempotencyWebFilter implements WebFilter, Ordered {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.web");
  private static final String ATTRIBUTE = IdempotencyWebFilter.class.getName();
  private static final byte[] TOO_LARGE = new byte[0];

  /** The order of a filter built without one: after Spring Security's, before most others. */
  public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

  /** The caller is the principal's name; empty (anonymous) without one. */
  public static final Function<ServerWebExchange, Mono<String>> PRINCIPAL_NAME =
      exchange -> exchange.getPrincipal().map(Principal::getName);

  /**
   * A submit token is bound to the principal's name, else to the web session once it is started
   * (issuing a token starts it); empty without either.
   */
  public static final Function<ServerWebExchange, Mono<String>> USER_OR_SESSION =
      exchange ->
          exchange
              .getPrincipal()
              .map(p -> "user:" + p.getName())
              .switchIfEmpty(
                  exchange
                      .getSession()
                      .filter(WebSession::isStarted)
                      .map(s -> "session:" + s.getId()));

  private final HttpIdempotency protocol;
  private final Function<ServerWebExchange, Mono<String>> callerIdentity;
  private final Function<ServerWebExchange, Mono<String>> submitSubject;
  private final ServerCodecConfigurer codecs;
  private final int order;

  private IdempotencyWebFilter(Builder b) {
    this.protocol = b.protocol;
    this.callerIdentity = b.callerIdentity;
    this.submitSubject = b.submitSubject;
    this.codecs = b.codecs != null ? b.codecs : ServerCodecConfigurer.create();
    this.order = b.order;
  }

  /** A filter over {@code protocol}. */
  public static Builder builder(HttpIdempotency protocol) {
    return new Builder(Objects.requireNonNull(protocol, "protocol must not be null"));
  }

  /**
   * The idempotency filter {@code exchange} passed (the first one, when there are several), for a
   * handler that issues submit tokens; {@code null} when no idempotency filter saw it.
   */
  public static IdempotencyWebFilter of(ServerWebExchange exchange) {
    Object f = exchange.getAttributes().get(ATTRIBUTE);
    return f instanceof IdempotencyWebFilter filter ? filter : null;
  }

  /** The protocol this filter adapts. */
  public HttpIdempotency protocol() {
    return protocol;
  }

  @Override
  public int getOrder() {
    return order;
  }

  /**
   * A fresh submit token for the form that posts to {@code path}, bound to the subject of {@code
   * exchange} (by default the principal's name, else the web session, which is started if it is
   * not). Render it in the rule's submit-token field (default {@code _submit_token}). The token is
   * written to the store on Reactor's bounded-elastic scheduler, off the event loop.
   *
   * @param path the path the form posts to, within the application, e.g. {@code /orders}
   * @return the token; an {@link IllegalArgumentException} when no submit-token rule covers {@code
   *     path}, an {@link IllegalStateException} when the exchange has no subject
   */
  public Mono<String> issueSubmitToken(ServerWebExchange exchange, String path) {
    Mono<Void> started =
        submitSubject == USER_OR_SESSION
            ? exchange
                .getPrincipal()
                .hasElement()
                .flatMap(
                    user ->
                        user
                            ? Mono.empty()
                            : exchange.getSession().doOnNext(WebSession::start).then())
            : Mono.empty();
    return started
        .then(submitSubject.apply(exchange))
        .switchIfEmpty(
            Mono.error(
                () ->
                    new IllegalStateException(
                        "the submit subject of this request is empty: the submitSubject function"
                            + " must name the user or session a token is issued to")))
        .flatMap(
            subject ->
                Mono.fromCallable(() -> protocol.issueSubmitToken(path, subject))
                    .subscribeOn(Schedulers.boundedElastic()));
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    exchange.getAttributes().putIfAbsent(ATTRIBUTE, this);
    ServerHttpRequest request = exchange.getRequest();
    String method = request.getMethod().name();
    String path = pathOf(request);
    if (protocol.match(method, path).isEmpty()) {
      return chain.filter(exchange);
    }
    return optional(callerIdentity.apply(exchange))
        .flatMap(caller -> admit(exchange, chain, method, path, caller.orElse(null)));
  }

  private Mono<Void> admit(
      ServerWebExchange exchange, WebFilterChain chain, String method, String path, String caller) {
    HttpHeaders headers = exchange.getRequest().getHeaders();
    HttpIdempotency.Admission admission =
        protocol.admit(method, path, name -> values(headers, name), caller);
    if (admission.passesThrough()) {
      return chain.filter(exchange);
    }
    if (admission.problem() != null) {
      return answer(exchange.getResponse(), HttpResult.problem(admission.problem()));
    }
    IdempotencyRule rule = admission.rule();
    return RequestBody.read(exchange.getRequest(), rule.maxRequestBodyBytes())
        .onErrorResume(RequestBody.TooLarge.class, e -> Mono.just(TOO_LARGE))
        .flatMap(
            body -> {
              if (body == TOO_LARGE) {
                return answer(
                    exchange.getResponse(), HttpResult.problem(HttpProblem.BODY_TOO_LARGE));
              }
              Mono<Optional<String>> subject =
                  rule.key() == IdempotencyRule.Key.SUBMIT_TOKEN
                      ? optional(submitSubject.apply(exchange))
                      : Mono.just(Optional.empty());
              return subject.flatMap(
                  who -> execute(exchange, chain, admission, body, who.orElse(null)));
            });
  }

  private Mono<Void> execute(
      ServerWebExchange exchange,
      WebFilterChain chain,
      HttpIdempotency.Admission admission,
      byte[] body,
      String subject) {
    ServerHttpRequest request = exchange.getRequest();
    ExchangeResponseCapture response =
        new ExchangeResponseCapture(
            exchange.getResponse(), admission.rule().maxResponseBodyBytes());
    BufferedExchange buffered = new BufferedExchange(exchange, body, response, codecs);
    return Mono.deferContextual(
            context ->
                // a cancelled request (the client went away) leaves the protocol's stage alone:
                // the work runs to its end and is recorded for the client's retry
                Mono.fromFuture(
                    protocol
                        .executeDeferred(
                            admission,
                            request.getURI().getRawQuery(),
                            request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE),
                            body,
                            () -> subject,
                            () ->
                                run(
                                    chain,
                                    buffered,
                                    response,
                                    context,
                                    admission.rule(),
                                    maxHold(admission.rule())))
                        .toCompletableFuture(),
                    true))
        .flatMap(result -> send(result, exchange.getResponse(), response));
  }

  /**
   * The protocol's application: the chain, subscribed now with the subscriber's context, its
   * response captured when it completes. Cancelling the request does not cancel it; the bound does:
   * a handler that has not completed {@code bound} after it started is cancelled, what it wrote is
   * dropped, and its key is settled as an ambiguous failure (the rule's {@code
   * on-ambiguous-failure}).
   */
  private static CompletionStage<ApplicationResponse> run(
      WebFilterChain chain,
      BufferedExchange exchange,
      ExchangeResponseCapture response,
      ContextView context,
      IdempotencyRule rule,
      Duration bound) {
    return chain
        .filter(exchange)
        .contextWrite(context)
        .then(Mono.fromSupplier(response::captured))
        .timeout(
            bound,
            Mono.fromSupplier(
                () -> {
                  response.abandon();
                  LOG.warn(
                      "a handler of rule '{}' did not complete within its max-hold ({}): it was"
                          + " cancelled, and its key is settled as an ambiguous failure"
                          + " (on-ambiguous-failure={})",
                      rule.scope(),
                      bound,
                      rule.settings().onAmbiguousFailure());
                  return ApplicationResponse.unrecordable(
                      504, "a handler that did not complete within its max-hold");
                }))
        .toFuture();
  }

  /** The bound of a handler's run: the rule's max-hold, else the instance's. */
  private Duration maxHold(IdempotencyRule rule) {
    Duration d = rule.maxHold();
    return d != null ? d : protocol.idempotency().config().maxHold();
  }

  private Mono<Void> send(
      HttpResult result, ServerHttpResponse response, ExchangeResponseCapture captured) {
    return result.kind() == HttpResult.Kind.SEND_CAPTURED
        ? captured.sendCaptured()
        : answer(response, result);
  }

  /**
   * Sends a replay or a problem: its status, the protocol's final header list copied onto the
   * response, and its body.
   */
  private Mono<Void> answer(ServerHttpResponse response, HttpResult result) {
    HttpProblem p = result.problem();
    if (p != null && response.isCommitted()) {
      LOG.warn("could not answer {} {}: the response was already committed", p.status(), p.title());
      return Mono.empty();
    }
    List<Map.Entry<String, String>> headers =
        result.headers(
            ExchangeResponseCapture.headers(response.getHeaders()), protocol.problemTypeBase());
    if (p != null) {
      response.setStatusCode(HttpStatusCode.valueOf(p.status()));
      copy(headers, response.getHeaders());
      byte[] body = p.body(protocol.problemTypeBase());
      return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
    }
    RecordedResponse recorded = result.replayed();
    response.setStatusCode(HttpStatusCode.valueOf(recorded.status()));
    copy(headers, response.getHeaders());
    if (recorded.bodyLength() == 0) {
      return response.setComplete();
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream(recorded.bodyLength());
    try {
      recorded.writeBodyTo(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // not thrown by a byte array
    }
    return response.writeWith(Mono.just(response.bufferFactory().wrap(body.toByteArray())));
  }

  /**
   * Copies a final header list onto {@code headers}: each name's first value set, the rest added.
   */
  private static void copy(List<Map.Entry<String, String>> list, HttpHeaders headers) {
    List<String> set = new ArrayList<>(list.size());
    for (Map.Entry<String, String> h : list) {
      if (containsIgnoringCase(set, h.getKey())) {
        headers.add(h.getKey(), h.getValue());
      } else {
        set.add(h.getKey());
        headers.set(h.getKey(), h.getValue());
      }
    }
  }

  /** The path within the application, decoded, as the servlet filter sees it. */
  static String pathOf(ServerHttpRequest request) {
    String raw = request.getPath().pathWithinApplication().value();
    String path = UriUtils.decode(raw, StandardCharsets.UTF_8);
    return path.isEmpty() ? "/" : path;
  }

  /** Every value of a request header, whatever the case of its name. */
  private static List<String> values(HttpHeaders headers, String name) {
    List<String> out = new ArrayList<>(1);
    List<String> seen = new ArrayList<>(1);
    headers.forEach(
        (n, v) -> {
          if (n.equalsIgnoreCase(name) && !containsIgnoringCase(seen, n)) {
            seen.add(n);
            out.addAll(v);
          }
        });
    return out;
  }

  private static boolean containsIgnoringCase(List<String> names, String name) {
    for (String n : names) {
      if (n.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  private static Mono<Optional<String>> optional(Mono<String> value) {
    return value.map(Optional::of).defaultIfEmpty(Optional.empty());
  }

  /** A filter over a protocol, with the exchange-side functions it needs. */
  public static final class Builder {
    private final HttpIdempotency protocol;
    private Function<ServerWebExchange, Mono<String>> callerIdentity = PRINCIPAL_NAME;
    private Function<ServerWebExchange, Mono<String>> submitSubject = USER_OR_SESSION;
    private ServerCodecConfigurer codecs;
    private int order = DEFAULT_ORDER;

    private Builder(HttpIdempotency protocol) {
      this.protocol = protocol;
    }

    /**
     * Who the caller is, part of every record's key so callers cannot replay each other's responses
     * (default {@link #PRINCIPAL_NAME}; empty for an anonymous caller). For example an API-key
     * header or a tenant.
     */
    public Builder callerIdentity(Function<ServerWebExchange, Mono<String>> identity) {
      this.callerIdentity = Objects.requireNonNull(identity, "callerIdentity must not be null");
      return this;
    }

    /**
     * Whom a submit token is bound to (default {@link #USER_OR_SESSION}; empty, which no token
     * matches, when there is neither). Called when issuing and when checking a token.
     */
    public Builder submitSubject(Function<ServerWebExchange, Mono<String>> subject) {
      this.submitSubject = Objects.requireNonNull(subject, "submitSubject must not be null");
      return this;
    }

    /**
     * The codecs that parse a protected request's form and multipart data from the body the filter
     * read (default {@link ServerCodecConfigurer#create()}; Spring Boot passes its own).
     */
    public Builder codecs(ServerCodecConfigurer codecs) {
      this.codecs = Objects.requireNonNull(codecs, "codecs must not be null");
      return this;
    }

    /** The filter's order among the application's web filters (default {@link #DEFAULT_ORDER}). */
    public Builder order(int order) {
      this.order = order;
      return this;
    }

    public IdempotencyWebFilter build() {
      return new IdempotencyWebFilter(this);
    }
  }
}
