package dev.idempotent.internal.codec;

/**
 * The formats of the Jackson codecs. Jackson 2 and Jackson 3 write the same JSON for the same value
 * and type information ({@code @JsonTypeInfo} ids are written the same way by both), so each codec
 * reads the other's records; the format name still says which one wrote a record.
 */
final class JacksonFormats {
  static final String JACKSON2 = "jackson2";
  static final String JACKSON3 = "jackson3";

  private JacksonFormats() {}

  static boolean isJson(String format) {
    return JACKSON2.equals(format) || JACKSON3.equals(format);
  }
}
