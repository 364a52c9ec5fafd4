package dev.idempotent.web.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A recorded response read back: status, headers in order, and the body written out of the record
 * itself.
 */
class RecordedResponseTest {
  @Test
  void readsBackWhatWasRecorded() throws Exception {
    byte[] body = "{\"id\":42}".getBytes(StandardCharsets.UTF_8);
    List<Map.Entry<String, String>> headers =
        List.of(
            Map.entry("Content-Type", "application/json"),
            Map.entry("Link", "<a>"),
            Map.entry("Link", "<b>"));

    RecordedResponse back =
        RecordedResponse.decode(new RecordedResponse(201, headers, body).encode());

    assertThat(back.status()).isEqualTo(201);
    assertThat(back.headers()).isEqualTo(headers);
    assertThat(back.bodyLength()).isEqualTo(body.length);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    back.writeBodyTo(out);
    assertThat(out.toByteArray()).isEqualTo(body);
  }

  @Test
  void aReplayWritesTheBodyStraightOutOfTheRecordedBytes() throws Exception {
    byte[] body = "{\"id\":42}".getBytes(StandardCharsets.UTF_8);
    byte[] recorded = new RecordedResponse(200, List.of(), body).encode();
    List<Object[]> writes = new ArrayList<>();
    OutputStream out =
        new OutputStream() {
          @Override
          public void write(int b) {
            writes.add(new Object[] {null, 0, 1});
          }

          @Override
          public void write(byte[] b, int off, int len) {
            writes.add(new Object[] {b, off, len});
          }
        };

    RecordedResponse.decode(recorded).writeBodyTo(out);

    assertThat(writes).hasSize(1);
    assertThat(writes.get(0)[0])
        .as("no copy of the body between the record and the client")
        .isSameAs(recorded);
    assertThat(writes.get(0)[1]).isEqualTo(recorded.length - body.length);
    assertThat(writes.get(0)[2]).isEqualTo(body.length);
  }

  @Test
  void refusesATruncatedRecord() {
    byte[] recorded = new RecordedResponse(200, List.of(), new byte[10]).encode();
    byte[] truncated = java.util.Arrays.copyOf(recorded, recorded.length - 1);

    assertThatThrownBy(() -> RecordedResponse.decode(truncated))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("truncated or corrupt");
  }
}
