package dev.idempotent.spring.internal;

import dev.idempotent.ResultCodec;
import java.util.Map;

/**
 * Which application mapper the jackson codec works on. With {@code idempotent.codec.type=jackson}:
 * the application's Jackson 3 {@code JsonMapper} bean when it has one (the line Spring Boot 4
 * configures and prefers), else its Jackson 2 {@code ObjectMapper} bean; {@code jackson3} and
 * {@code jackson2} name one line. {@code null} (the core's own mapper of that line, chosen by the
 * settings) when the application has no such bean.
 */
public final class ApplicationMapperCodecs {
  private ApplicationMapperCodecs() {}

  /**
   * {@code jackson3} and {@code jackson2} are the beans of each line, either may be {@code null}
   * (that line is not on the class path).
   */
  public static ResultCodec codecOrNull(
      Map<String, String> settings,
      ApplicationJsonMapperCodec jackson3,
      ApplicationObjectMapperCodec jackson2) {
    String type = settings.getOrDefault("idempotent.codec.type", settings.get("idempotent.codec"));
    String allow = settings.get("idempotent.codec.allow");
    String[] patterns = allow == null ? new String[0] : allow.split("\\s*,\\s*");
    ResultCodec codec = null;
    if (jackson3 != null && ("jackson".equals(type) || "jackson3".equals(type))) {
      codec = jackson3.codecOrNull(patterns);
    }
    if (codec == null && jackson2 != null && ("jackson".equals(type) || "jackson2".equals(type))) {
      codec = jackson2.codecOrNull(patterns);
    }
    return codec;
  }
}
