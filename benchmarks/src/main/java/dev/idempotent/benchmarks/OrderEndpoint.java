package dev.idempotent.benchmarks;

import jakarta.servlet.ServletInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The application's endpoint, shared by both sides of the web benchmarks: it reads the whole JSON
 * request body and answers 201 with a small JSON body naming the order, the kind of answer an order
 * endpoint gives.
 */
final class OrderEndpoint {
  static final String PATH = "/orders";
  static final String CONTENT_TYPE = "application/json";
  static final int CREATED = 201;
  private static final byte[] BODY_START = "{\"order\":\"".getBytes(StandardCharsets.UTF_8);
  private static final byte[] BODY_END =
      ("\",\"status\":\"accepted\",\"amount\":{\"value\":1299,"
              + "\"currency\":\"EUR\"},\"links\":[\"/orders/track\"]}")
          .getBytes(StandardCharsets.UTF_8);

  private OrderEndpoint() {}

  /** A request body of the size a small order has. */
  static byte[] requestBody(String orderId) {
    return ("{\"orderId\":\""
            + orderId
            + "\",\"customer\":\"c-1029\",\"items\":[{\"sku\":\"A-17\",\"qty\":2},"
            + "{\"sku\":\"B-3\",\"qty\":1}],\"amount\":1299}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads the request body to its end, as a JSON reader would, and returns how many bytes it had.
   */
  static int readBody(ServletInputStream in, byte[] scratch) throws IOException {
    int total = 0;
    for (int n; (n = in.read(scratch, 0, scratch.length)) > 0; ) {
      total += n;
    }
    return total;
  }

  /** The response body for {@code orderId}. */
  static byte[] responseBody(String orderId) {
    byte[] id = orderId.getBytes(StandardCharsets.UTF_8);
    byte[] body = new byte[BODY_START.length + id.length + BODY_END.length];
    System.arraycopy(BODY_START, 0, body, 0, BODY_START.length);
    System.arraycopy(id, 0, body, BODY_START.length, id.length);
    System.arraycopy(BODY_END, 0, body, BODY_START.length + id.length, BODY_END.length);
    return body;
  }
}
