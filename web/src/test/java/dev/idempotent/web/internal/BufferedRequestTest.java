package dev.idempotent.web.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The request body as the filter buffers it, whether its declared length is right, missing, short
 * or long.
 */
class BufferedRequestTest {
  private static HttpServletRequest request(byte[] body, long declaredLength) {
    ByteArrayInputStream bytes = new ByteArrayInputStream(body);
    ServletInputStream in =
        new ServletInputStream() {
          @Override
          public int read() {
            return bytes.read();
          }

          @Override
          public int read(byte[] b, int off, int len) {
            return bytes.read(
                b, off, Math.min(len, 3)); // a few bytes at a time, as a network read may give them
          }

          @Override
          public boolean isFinished() {
            return bytes.available() == 0;
          }

          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public void setReadListener(ReadListener listener) {}
        };
    return (HttpServletRequest)
        Proxy.newProxyInstance(
            BufferedRequestTest.class.getClassLoader(),
            new Class<?>[] {HttpServletRequest.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getContentLengthLong" -> declaredLength;
                  case "getInputStream" -> in;
                  case "getContentType" -> "application/json";
                  case "getParameterMap" -> Map.of();
                  default -> null;
                });
  }

  private static byte[] body(int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) ('a' + i % 26);
    }
    return b;
  }

  @Test
  void aBodyOfItsDeclaredLength() throws Exception {
    assertThat(BufferedRequest.read(request(body(100), 100), 1000).body()).isEqualTo(body(100));
    assertThat(BufferedRequest.read(request(body(0), 0), 1000).body()).isEmpty();
  }

  @Test
  void aBodyWithoutADeclaredLength() throws Exception {
    assertThat(BufferedRequest.read(request(body(20_000), -1), 100_000).body())
        .isEqualTo(body(20_000));
  }

  @Test
  void aBodyShorterOrLongerThanDeclaredIsReadAsItIs() throws Exception {
    assertThat(BufferedRequest.read(request(body(60), 100), 1000).body()).isEqualTo(body(60));
    assertThat(BufferedRequest.read(request(body(20_000), 10), 100_000).body())
        .isEqualTo(body(20_000));
  }

  @Test
  void aBodyPastTheLimitIsRefusedWhateverItDeclares() {
    assertThatThrownBy(() -> BufferedRequest.read(request(body(1001), 1001), 1000))
        .isInstanceOf(BufferedRequest.TooLarge.class);
    assertThatThrownBy(() -> BufferedRequest.read(request(body(1001), 1000), 1000))
        .isInstanceOf(BufferedRequest.TooLarge.class);
    assertThatThrownBy(() -> BufferedRequest.read(request(body(5000), 10), 1000))
        .isInstanceOf(BufferedRequest.TooLarge.class);
    assertThatThrownBy(() -> BufferedRequest.read(request(body(5000), -1), 1000))
        .isInstanceOf(BufferedRequest.TooLarge.class);
  }
}
