package dev.idempotent.web.internal;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The captured body on its way out: copied out of the buffer once, for the record and the client
 * alike.
 */
class ServletResponseCaptureTest {
  /** One write the real response's stream received: the very array, and the range written. */
  record Write(byte[] array, int offset, int length) {}

  private final List<Write> writes = new ArrayList<>();
  private final List<Integer> contentLengths = new ArrayList<>();
  private final ServletOutputStream realStream =
      new ServletOutputStream() {
        @Override
        public void write(int b) {
          writes.add(new Write(new byte[] {(byte) b}, 0, 1));
        }

        @Override
        public void write(byte[] b, int off, int len) {
          writes.add(new Write(b, off, len));
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {}
      };

  /** A real response that records what reaches it; any other call answers a neutral value. */
  private final HttpServletResponse real =
      (HttpServletResponse)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {HttpServletResponse.class},
              (proxy, method, args) -> {
                switch (method.getName()) {
                  case "getOutputStream" -> {
                    return realStream;
                  }
                  case "setContentLength" -> {
                    contentLengths.add((Integer) args[0]);
                    return null;
                  }
                  case "getCharacterEncoding" -> {
                    return "UTF-8";
                  }
                  default -> {
                    Class<?> type = method.getReturnType();
                    return type == boolean.class ? false : type == int.class ? 0 : null;
                  }
                }
              });

  @Test
  void sendsTheArrayThatWasRecordedWithoutCopyingTheBodyAgain() throws IOException {
    ServletResponseCapture capture = new ServletResponseCapture(real, 1024);
    capture.getOutputStream().write("{\"id\":42}".getBytes(StandardCharsets.UTF_8));

    byte[] recorded = capture.finish();
    capture.sendBuffered();

    assertThat(contentLengths).containsExactly(recorded.length);
    assertThat(writes).hasSize(1);
    Write sent = writes.get(0);
    assertThat(sent.array())
        .as("the body array the record was made of, not a second copy")
        .isSameAs(recorded);
    assertThat(sent.offset()).isZero();
    assertThat(sent.length()).isEqualTo(recorded.length);
  }

  @Test
  void aBodyWrittenAfterFinishIsSentToo() throws IOException {
    ServletResponseCapture capture = new ServletResponseCapture(real, 1024);
    capture.getWriter().write("first");
    capture.finish();
    capture.getWriter().write(" and more");

    capture.sendBuffered();

    assertThat(
            new String(
                writes.get(0).array(),
                writes.get(0).offset(),
                writes.get(0).length(),
                StandardCharsets.UTF_8))
        .isEqualTo("first and more");
    assertThat(contentLengths).containsExactly("first and more".length());
  }

  @Test
  void aBodyHandedOutIsNeverChangedByWhatIsWrittenAfter() throws IOException {
    ServletResponseCapture capture = new ServletResponseCapture(real, 1024);
    capture.setContentLength(5);
    capture.getOutputStream().write("first".getBytes(StandardCharsets.UTF_8));
    byte[] first = capture.finish();
    assertThat(new String(first, StandardCharsets.UTF_8)).isEqualTo("first");

    capture.getOutputStream().write("+more".getBytes(StandardCharsets.UTF_8));
    byte[] second = capture.finish();
    capture.resetBuffer();
    capture.getOutputStream().write("other".getBytes(StandardCharsets.UTF_8));
    byte[] third = capture.finish();

    assertThat(new String(first, StandardCharsets.UTF_8)).isEqualTo("first");
    assertThat(new String(second, StandardCharsets.UTF_8)).isEqualTo("first+more");
    assertThat(new String(third, StandardCharsets.UTF_8)).isEqualTo("other");
  }

  @Test
  void manySmallWritesAndAWrongDeclaredLengthGiveTheBodyAsWritten() throws IOException {
    ServletResponseCapture capture = new ServletResponseCapture(real, 1 << 20);
    capture.setContentLength(3);
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 5_000; i++) {
      String part = i % 7 == 0 ? "" : Integer.toString(i);
      capture.getOutputStream().write(part.getBytes(StandardCharsets.UTF_8));
      capture.getOutputStream().write(',');
      expected.append(part).append(',');
    }

    assertThat(new String(capture.finish(), StandardCharsets.UTF_8)).isEqualTo(expected.toString());
  }
}
