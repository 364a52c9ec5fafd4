package dev.idempotent.http;

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
  /** A streamed response's record completes its key but is never read as a response to replay. */
  @Test
  void theRecordOfAStreamIsTellableFromAResponse() {
    byte[] streamed = RecordedResponse.encodeStreamed(200);
    assertThat(RecordedResponse.isStreamed(streamed)).isTrue();
    assertThat(
            RecordedResponse.isStreamed(new RecordedResponse(200, List.of(), new byte[0]).encode()))
        .isFalse();
    assertThatThrownBy(() -> RecordedResponse.decode(streamed))
        .isInstanceOf(IllegalStateException.class);
  }

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

  @Test
  void theRecordIsTheFormatOfEarlierVersionsByteForByte() throws Exception {
    // Records written before stay readable and records written now are read by earlier versions:
    // the layout is DataOutputStream's, pinned here against it.
    byte[] body = "<p>ok</p>".getBytes(StandardCharsets.UTF_8);
    List<Map.Entry<String, String>> headers =
        List.of(
            Map.entry("Content-Type", "text/html; charset=UTF-8"),
            Map.entry("Content-Disposition", "inline; filename=\"r\u00e9sum\u00e9 \u20ac.html\""),
            Map.entry("X-Nul", "a\u0000b"),
            Map.entry("Link", "<\ud83d\ude00>"),
            Map.entry("Empty", ""));
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(expected)) {
      out.writeShort('H' << 8 | 1);
      out.writeShort(203);
      out.writeShort(headers.size());
      for (Map.Entry<String, String> h : headers) {
        out.writeUTF(h.getKey());
        out.writeUTF(h.getValue());
      }
      out.writeInt(body.length);
      out.write(body);
    }

    byte[] recorded = new RecordedResponse(203, headers, body).encode();

    assertThat(recorded).isEqualTo(expected.toByteArray());
    RecordedResponse back = RecordedResponse.decode(expected.toByteArray());
    assertThat(back.status()).isEqualTo(203);
    assertThat(back.headers()).isEqualTo(headers);
    assertThat(back.bodyLength()).isEqualTo(body.length);
  }

  @Test
  void aHeaderTooLongToRecordIsRefusedWhenRecording() {
    String value = "\u20ac".repeat(21_846); // 65,538 bytes
    RecordedResponse response =
        new RecordedResponse(200, List.of(Map.entry("Link", value)), new byte[0]);

    assertThatThrownBy(response::encode)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("65,535");
  }

  @Test
  void everyTruncationAndEveryFlippedByteIsAnErrorOrAResponseNeverAnotherException() {
    byte[] recorded =
        new RecordedResponse(
                201,
                List.of(
                    Map.entry("Content-Type", "application/json"),
                    Map.entry("Location", "/orders/\u00e942")),
                "{\"id\":42}".getBytes(StandardCharsets.UTF_8))
            .encode();
    for (int cut = 0; cut < recorded.length; cut++) {
      byte[] truncated = java.util.Arrays.copyOf(recorded, cut);
      assertThatThrownBy(() -> RecordedResponse.decode(truncated))
          .as("cut at %d", cut)
          .isInstanceOf(IllegalStateException.class);
    }
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < 20_000; i++) {
      byte[] hostile = recorded.clone();
      hostile[2 + random.nextInt(hostile.length - 2)] = (byte) random.nextInt(256);
      if (random.nextBoolean()) {
        hostile[2 + random.nextInt(hostile.length - 2)] = (byte) random.nextInt(256);
      }
      try {
        RecordedResponse back = RecordedResponse.decode(hostile);
        assertThat(back.bodyLength()).isBetween(0, hostile.length);
      } catch (IllegalStateException expected) {
        assertThat(expected).hasMessageContaining("truncated or corrupt");
      }
    }
  }
}
