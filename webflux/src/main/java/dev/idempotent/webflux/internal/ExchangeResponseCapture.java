package dev.idempotent.webflux.internal;

import dev.idempotent.http.ApplicationResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The response a protected request's application writes into: its status and headers go to the real
 * response (which is not committed), its body is held, up to the rule's limit, until the protocol
 * has decided. A body that passes the limit goes to the client as it is written (what was held
 * first, then the rest) and the response is not recorded.
 */
public final class ExchangeResponseCapture extends ServerHttpResponseDecorator {
  private volatile BoundedBytes held;
  private final int limit;
  private volatile boolean passedThrough;
  private volatile boolean streamed;

  public ExchangeResponseCapture(ServerHttpResponse delegate, int limit) {
    super(delegate);
    this.limit = limit;
    this.held = new BoundedBytes(limit);
  }

  @Override
  public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
    if (isStreaming(getHeaders().getContentType())) {
      streamed = true;
      return getDelegate().writeWith(body);
    }
    Flux<DataBuffer> overflow =
        Flux.<DataBuffer>from(body)
            .concatMapIterable(
                buffer -> {
                  if (passedThrough) {
                    return List.of(buffer);
                  }
                  if (held.append(buffer)) {
                    DataBufferUtils.release(buffer);
                    return List.of();
                  }
                  passedThrough = true;
                  return List.of(bufferFactory().wrap(held.toByteArray()), buffer);
                });
    // nothing reaches the real response unless the body passes the limit
    return overflow
        .switchOnFirst((first, all) -> first.hasValue() ? getDelegate().writeWith(all) : all.then())
        .then();
  }

  /**
   * A write with flushes is a stream (Spring writes server-sent events and NDJSON so): it goes to
   * the client as it flows, each flush at once, and is not recorded.
   */
  @Override
  public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
    streamed = true;
    return getDelegate().writeAndFlushWith(body);
  }

  /** Whether {@code type} is that of a streaming response. */
  static boolean isStreaming(MediaType type) {
    return type != null
        && (type.isCompatibleWith(MediaType.TEXT_EVENT_STREAM)
            || type.isCompatibleWith(MediaType.APPLICATION_NDJSON)
            || "stream+json".equals(type.getSubtype())
            || "jsonl".equals(type.getSubtype()));
  }

  /** Whether the response was a stream that went to the client as it flowed. */
  public boolean streamed() {
    return streamed;
  }

  /** How many body bytes are held for recording. */
  public int heldBytes() {
    return held.size();
  }

  /**
   * The handler was cancelled at its bound: what it wrote is dropped (the bytes freed), and a
   * client still waiting gets 504 with no body.
   */
  public void abandon() {
    held = new BoundedBytes(0);
    if (!isCommitted() && !streamed && !passedThrough) {
      getDelegate().setStatusCode(HttpStatusCode.valueOf(504));
    }
  }

  /** The application's end of the response: held until the protocol has decided. */
  @Override
  public Mono<Void> setComplete() {
    return Mono.empty();
  }

  /** What the application answered, for the protocol to record. */
  public ApplicationResponse captured() {
    int status = status();
    if (streamed) {
      return ApplicationResponse.streamed(status);
    }
    if (passedThrough) {
      return ApplicationResponse.unrecordable(status, "larger than " + limit + " bytes");
    }
    return ApplicationResponse.of(status, headers(getHeaders()), held.toByteArray());
  }

  /** Sends what the application answered, unless it went to the client already. */
  public Mono<Void> sendCaptured() {
    if (passedThrough || streamed) {
      return Mono.empty();
    }
    byte[] body = held.toByteArray();
    ServerHttpResponse response = getDelegate();
    response.getHeaders().setContentLength(body.length);
    return body.length == 0
        ? response.setComplete()
        : response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
  }

  private int status() {
    HttpStatusCode code = getStatusCode();
    return code == null ? 200 : code.value();
  }

  /** Every header, each name once whatever its case, {@code Content-Type} included. */
  public static List<Map.Entry<String, String>> headers(HttpHeaders headers) {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    List<String> seen = new ArrayList<>(8);
    headers.forEach(
        (name, values) -> {
          if (containsIgnoringCase(seen, name)) {
            return;
          }
          seen.add(name);
          for (String value : values) {
            out.add(Map.entry(name, value));
          }
        });
    return out;
  }

  static boolean containsIgnoringCase(List<String> names, String name) {
    for (String n : names) {
      if (n.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }
}
