package dev.idempotent.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyKeyException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MessageKeyTest {
  @Test
  void headerBytesThatAreNotUtf8NeverCollide() {
    byte[] mueller = "Müller-7".getBytes(StandardCharsets.ISO_8859_1);
    byte[] maeller = "Mäller-7".getBytes(StandardCharsets.ISO_8859_1);
    MessageKey a = MessageKey.fromHeader(mueller, "s");
    MessageKey b = MessageKey.fromHeader(maeller, "s");
    assertThat(a).isNotEqualTo(b);
    assertThat(a.value()).startsWith("idempotency-key-bytes:");
    // a lossy decode would have made both the same replacement-character text
    assertThat(new String(mueller, StandardCharsets.UTF_8))
        .isEqualTo(new String(maeller, StandardCharsets.UTF_8));
  }

  @Test
  void utf8HeaderBytesGiveTheSameKeyAsTheText() {
    assertThat(MessageKey.fromHeader("Müller-7".getBytes(StandardCharsets.UTF_8), "s"))
        .isEqualTo(MessageKey.fromHeader("Müller-7", "s"));
  }

  @Test
  void rawBytesNeverEqualAnyTextKey() {
    byte[] latin1 = "Müller-7".getBytes(StandardCharsets.ISO_8859_1);
    String filed = MessageKey.fromHeader(latin1, "s").value();
    String asText = filed.substring("idempotency-key-bytes:".length());
    assertThat(MessageKey.fromHeader(asText, "s").value()).isNotEqualTo(filed);
  }

  @Test
  void emptyOrOverlongBytesAreRefused() {
    assertThatThrownBy(() -> MessageKey.fromHeader(new byte[0], "s"))
        .isInstanceOf(IdempotencyKeyException.class);
    byte[] longLatin1 = new byte[MessageKey.MAX_LENGTH + 1];
    java.util.Arrays.fill(longLatin1, (byte) 0xE9);
    assertThatThrownBy(() -> MessageKey.fromHeader(longLatin1, "s"))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("not UTF-8");
  }
}
