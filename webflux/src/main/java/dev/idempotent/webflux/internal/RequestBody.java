package dev.idempotent.webflux.internal;

import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.server.reactive.ServerHttpRequest;
import reactor.core.publisher.Mono;

/** Reads a request's body whole, up to a limit, holding no more than the limit. */
public final class RequestBody {
  private RequestBody() {}

  /** The body is larger than the rule's limit: answered 413, the application does not run. */
  public static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("the request body is larger than the rule's limit", null, false, false);
    }
  }

  /**
   * The whole body, or {@link TooLarge} as soon as a declared {@code Content-Length} or the bytes
   * read pass {@code limit} (the rest is not read).
   */
  public static Mono<byte[]> read(ServerHttpRequest request, int limit) {
    long declared = request.getHeaders().getContentLength();
    if (declared > limit) {
      return Mono.error(new TooLarge());
    }
    return request
        .getBody()
        .reduceWith(
            () -> new BoundedBytes(limit),
            (bytes, buffer) -> {
              try {
                if (!bytes.append(buffer)) {
                  throw new TooLarge();
                }
                return bytes;
              } finally {
                DataBufferUtils.release(buffer);
              }
            })
        .map(BoundedBytes::toByteArray);
  }
}
