package dev.idempotent.redisson.internal;

/**
 * CRC16/XMODEM (polynomial 0x1021, initial value 0), the checksum Redis Cluster hashes key names
 * with, here over the UTF-8 bytes of Java text without encoding it first. A lone surrogate counts
 * as {@code ?}, as {@code String.getBytes(UTF_8)} (and so Redisson) sends it.
 */
final class Crc16 {
  private static final int[] TABLE = table();

  private Crc16() {}

  /** The checksum {@code crc} continued over the UTF-8 bytes of {@code text}. */
  static int update(int crc, String text) {
    int length = text.length();
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        crc = next(crc, c);
      } else if (c < 0x800) {
        crc = next(crc, 0xC0 | (c >> 6));
        crc = next(crc, 0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c)
          && i + 1 < length
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, text.charAt(++i));
        crc = next(crc, 0xF0 | (cp >> 18));
        crc = next(crc, 0x80 | ((cp >> 12) & 0x3F));
        crc = next(crc, 0x80 | ((cp >> 6) & 0x3F));
        crc = next(crc, 0x80 | (cp & 0x3F));
      } else if (Character.isSurrogate(c)) {
        crc = next(crc, '?');
      } else {
        crc = next(crc, 0xE0 | (c >> 12));
        crc = next(crc, 0x80 | ((c >> 6) & 0x3F));
        crc = next(crc, 0x80 | (c & 0x3F));
      }
    }
    return crc;
  }

  /** The checksum of {@code bytes}. */
  static int of(byte[] bytes) {
    int crc = 0;
    for (byte b : bytes) {
      crc = next(crc, b);
    }
    return crc;
  }

  private static int next(int crc, int b) {
    return ((crc << 8) ^ TABLE[((crc >>> 8) ^ b) & 0xFF]) & 0xFFFF;
  }

  private static int[] table() {
    int[] t = new int[256];
    for (int i = 0; i < 256; i++) {
      int crc = i << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      t[i] = crc & 0xFFFF;
    }
    return t;
  }
}
