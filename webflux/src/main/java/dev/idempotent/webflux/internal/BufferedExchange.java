package dev.idempotent.webflux.internal;

import java.security.Principal;
import java.util.Map;
import java.util.function.Consumer;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A protected request's exchange as the application sees it: the body read by the filter (served
 * again from memory, as often as asked), form and multipart data parsed from it, and the capturing
 * response. {@link #mutate()} keeps both.
 */
public final class BufferedExchange extends ServerWebExchangeDecorator {
  private static final ResolvableType FORM_DATA =
      ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class, String.class);
  private static final ResolvableType MULTIPART_DATA =
      ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class, Part.class);

  private final ServerHttpRequest request;
  private final ServerHttpResponse response;
  private final Mono<Principal> principal;
  private final Mono<MultiValueMap<String, String>> formData;
  private final Mono<MultiValueMap<String, Part>> multipartData;
  private final ServerCodecConfigurer codecs;

  /** The exchange whose body is {@code body} and whose response is {@code response}. */
  public BufferedExchange(
      ServerWebExchange exchange,
      byte[] body,
      ExchangeResponseCapture response,
      ServerCodecConfigurer codecs) {
    this(exchange, bodyOf(exchange.getRequest(), body), response, null, codecs);
  }

  private BufferedExchange(
      ServerWebExchange exchange,
      ServerHttpRequest request,
      ServerHttpResponse response,
      Mono<Principal> principal,
      ServerCodecConfigurer codecs) {
    super(exchange);
    this.request = request;
    this.response = response;
    this.principal = principal;
    this.codecs = codecs;
    this.formData = read(codecs, request, MediaType.APPLICATION_FORM_URLENCODED, FORM_DATA);
    this.multipartData = read(codecs, request, MediaType.MULTIPART_FORM_DATA, MULTIPART_DATA);
  }

  private static ServerHttpRequest bodyOf(ServerHttpRequest request, byte[] body) {
    return new ServerHttpRequestDecorator(request) {
      @Override
      public Flux<DataBuffer> getBody() {
        return Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
      }
    };
  }

  @SuppressWarnings("unchecked")
  private static <T> Mono<MultiValueMap<String, T>> read(
      ServerCodecConfigurer codecs,
      ServerHttpRequest request,
      MediaType mediaType,
      ResolvableType type) {
    MediaType contentType;
    try {
      contentType = request.getHeaders().getContentType();
    } catch (RuntimeException e) {
      contentType = null; // an unreadable Content-Type is no form
    }
    if (contentType == null || !mediaType.isCompatibleWith(contentType)) {
      return Mono.just(new LinkedMultiValueMap<>());
    }
    for (HttpMessageReader<?> reader : codecs.getReaders()) {
      if (reader.canRead(type, mediaType)) {
        return ((HttpMessageReader<MultiValueMap<String, T>>) reader)
            .readMono(type, request, Map.of())
            .switchIfEmpty(Mono.fromSupplier(LinkedMultiValueMap::new))
            .cache();
      }
    }
    return Mono.just(new LinkedMultiValueMap<>());
  }

  @Override
  public ServerHttpRequest getRequest() {
    return request;
  }

  @Override
  public ServerHttpResponse getResponse() {
    return response;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends Principal> Mono<T> getPrincipal() {
    return principal != null ? (Mono<T>) principal : super.getPrincipal();
  }

  @Override
  public Mono<MultiValueMap<String, String>> getFormData() {
    return formData;
  }

  @Override
  public Mono<MultiValueMap<String, Part>> getMultipartData() {
    return multipartData;
  }

  @Override
  public Builder mutate() {
    return new Mutation(this);
  }

  /** {@link #mutate()}: a changed request, response or principal over this exchange. */
  private static final class Mutation implements Builder {
    private final BufferedExchange exchange;
    private ServerHttpRequest request;
    private ServerHttpResponse response;
    private Mono<Principal> principal;

    Mutation(BufferedExchange exchange) {
      this.exchange = exchange;
      this.request = exchange.request;
      this.response = exchange.response;
      this.principal = exchange.principal;
    }

    @Override
    public Builder request(Consumer<ServerHttpRequest.Builder> configurer) {
      ServerHttpRequest.Builder b = request.mutate();
      configurer.accept(b);
      request = b.build();
      return this;
    }

    @Override
    public Builder request(ServerHttpRequest request) {
      this.request = request;
      return this;
    }

    @Override
    public Builder response(ServerHttpResponse response) {
      this.response = response;
      return this;
    }

    @Override
    public Builder principal(Mono<Principal> principal) {
      this.principal = principal;
      return this;
    }

    @Override
    public ServerWebExchange build() {
      return new BufferedExchange(
          exchange.getDelegate(), request, response, principal, exchange.codecs);
    }
  }
}
