package dev.idempotent.redisson.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.RecordKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The checksum of record names and owner digests is CRC16/XMODEM of the text's UTF-8 bytes as Java
 * (and so Redisson) encodes them, computed without encoding; the scope digest is the scope id in
 * base64url.
 */
class Crc16Test {
  private static final List<String> TEXTS =
      List.of(
          "",
          "123456789",
          "order-42",
          "ünïcødé ключ 键",
          "emoji 😀 and 𝄞",
          "lone high \uD800 surrogate",
          "lone low \uDC00",
          "ends with a high surrogate \uD83D",
          "\u07FF\u0800\uFFFF");

  @Test
  void theChecksumIsTheOneOfTheUtf8BytesRedisReceives() {
    assertThat(Crc16.update(0, "123456789")).as("CRC16/XMODEM check value").isEqualTo(0x31C3);
    for (String text : TEXTS) {
      byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
      assertThat(Crc16.update(0, text)).as(text).isEqualTo(Crc16.of(utf8)).isEqualTo(bitwise(utf8));
      assertThat(RecordNames.slot(text)).as(text).isEqualTo(bitwise(utf8) & 16383);
    }
    assertThat(Crc16.update(Crc16.update(0, "order-"), "42"))
        .as("continued")
        .isEqualTo(Crc16.update(0, "order-42"));
  }

  @Test
  void aScopeDigestIsTheScopeIdInBase64Url() {
    for (String scope : List.of("orders.submit", "ünï", "com.example.A.b(java.lang.String)")) {
      byte[] id = ByteBuffer.allocate(8).putLong(RecordKey.scopeIdOf(scope)).array();
      assertThat(RecordNames.scopeDigest(scope))
          .isEqualTo(Base64.getUrlEncoder().withoutPadding().encodeToString(id));
    }
  }

  @Test
  void everySlotHasItsTag() {
    for (int slot = 0; slot < 16384; slot++) {
      assertThat(RecordNames.slot(RecordNames.slotTag(slot))).isEqualTo(slot);
    }
  }

  private static int bitwise(byte[] bytes) {
    int crc = 0;
    for (byte b : bytes) {
      crc ^= (b & 0xFF) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      crc &= 0xFFFF;
    }
    return crc;
  }
}
