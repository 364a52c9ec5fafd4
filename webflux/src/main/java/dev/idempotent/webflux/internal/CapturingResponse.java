package dev.idempotent.webflux.internal;

import dev.idempotent.http.CapturedResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
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
public final class CapturingResponse extends ServerHttpResponseDecorator {
  private final BoundedBytes held;
  private final int limit;
  private volatile boolean passedThrough;

  public CapturingResponse(ServerHttpResponse delegate, int limit) {
    super(delegate);
    this.limit = limit;
    this.held = new BoundedBytes(limit);
  }

  @Override
  public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
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

  @Override
  public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
    return writeWith(Flux.from(body).concatMap(Flux::from));
  }

  /** The application's end of the response: held until the protocol has decided. */
  @Override
  public Mono<Void> setComplete() {
    return Mono.empty();
  }

  /** What the application answered, for the protocol to record. */
  public CapturedResponse captured() {
    int status = status();
    if (passedThrough) {
      return CapturedResponse.unrecordable(status, "larger than " + limit + " bytes");
    }
    return CapturedResponse.of(status, headers(getHeaders()), held.toByteArray());
  }

  /** Sends what the application answered, unless it went to the client already. */
  public Mono<Void> sendCaptured() {
    if (passedThrough) {
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
  static List<Map.Entry<String, String>> headers(HttpHeaders headers) {
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
