package dev.idempotent.spring.internal;

import dev.idempotent.IdempotencyConfig.CodecType;
import dev.idempotent.ResultCodec;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.StoreSettings;

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
      StoreSettings settings,
      ApplicationJsonMapperCodec jackson3,
      ApplicationObjectMapperCodec jackson2) {
    CodecType type = PropertiesConfigLoader.codec(settings);
    String[] patterns = settings.value(PropertiesConfigLoader.CODEC_ALLOW).toArray(String[]::new);
    ResultCodec codec = null;
    if (jackson3 != null && (type == CodecType.JACKSON || type == CodecType.JACKSON3)) {
      codec = jackson3.codecOrNull(patterns);
    }
    if (codec == null
        && jackson2 != null
        && (type == CodecType.JACKSON || type == CodecType.JACKSON2)) {
      codec = jackson2.codecOrNull(patterns);
    }
    return codec;
  }
}
