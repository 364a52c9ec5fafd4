package dev.idempotent.benchmarks;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The web baseline: the same endpoint with the store calls written by hand, what an application
 * would write without the filter. It claims the {@code Idempotency-Key} through the store SPI, runs
 * the endpoint, records the status, content type and body in one array ({@code complete}) and sends
 * them; a completed key is replayed from the record, a key in progress gets 409.
 */
final class HandWrittenServlet {
  private static final String SCOPE = "bench.web.baseline";

  private final IdempotencyStore store;
  private final Duration lease;
  private final Duration ttl;

  HandWrittenServlet(IdempotencyStore store, Duration lease, Duration ttl) {
    this.store = store;
    this.lease = lease;
    this.ttl = ttl;
  }

  void service(
      HttpServletRequest request, HttpServletResponse response, String owner, byte[] scratch)
      throws IOException {
    String key = request.getHeader("Idempotency-Key");
    RecordKey recordKey = RecordKey.of(SCOPE, key);
    ClaimResult claim = store.claim(recordKey, owner, null, lease);
    if (!claim.isAcquired()) {
      IdempotencyRecord existing = claim.existing();
      if (!existing.isCompleted()) {
        response.setStatus(409);
        return;
      }
      replay(existing.outcome(), response);
      return;
    }
    OrderEndpoint.readBody(request.getInputStream(), scratch);
    byte[] body = OrderEndpoint.responseBody(key);
    store.complete(
        recordKey, owner, encode(OrderEndpoint.CREATED, OrderEndpoint.CONTENT_TYPE, body), ttl);
    response.setStatus(OrderEndpoint.CREATED);
    response.setContentType(OrderEndpoint.CONTENT_TYPE);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /** Status (2 bytes), content type (length-prefixed, 2 bytes), body. */
  private static byte[] encode(int status, String contentType, byte[] body) {
    byte[] type = contentType.getBytes(StandardCharsets.ISO_8859_1);
    byte[] out = new byte[4 + type.length + body.length];
    out[0] = (byte) (status >> 8);
    out[1] = (byte) status;
    out[2] = (byte) (type.length >> 8);
    out[3] = (byte) type.length;
    System.arraycopy(type, 0, out, 4, type.length);
    System.arraycopy(body, 0, out, 4 + type.length, body.length);
    return out;
  }

  private static void replay(byte[] outcome, HttpServletResponse response) throws IOException {
    int status = (outcome[0] & 0xFF) << 8 | outcome[1] & 0xFF;
    int typeLength = (outcome[2] & 0xFF) << 8 | outcome[3] & 0xFF;
    int bodyStart = 4 + typeLength;
    response.setStatus(status);
    response.setContentType(new String(outcome, 4, typeLength, StandardCharsets.ISO_8859_1));
    response.setHeader("Idempotent-Replayed", "true");
    response.setContentLength(outcome.length - bodyStart);
    response.getOutputStream().write(outcome, bodyStart, outcome.length - bodyStart);
  }
}
