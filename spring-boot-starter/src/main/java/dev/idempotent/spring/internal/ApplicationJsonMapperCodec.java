package dev.idempotent.spring.internal;

import dev.idempotent.ResultCodec;
import dev.idempotent.internal.codec.JacksonCodecFactory;
import org.springframework.beans.factory.ObjectProvider;
import tools.jackson.databind.json.JsonMapper;

/**
 * The jackson codec on a copy of the application's Jackson 3 {@link JsonMapper} bean (the one
 * Spring Boot 4 configures). Defined only when Jackson 3 is on the classpath.
 */
public final class ApplicationJsonMapperCodec {
  private final ObjectProvider<JsonMapper> mappers;

  public ApplicationJsonMapperCodec(ObjectProvider<JsonMapper> mappers) {
    this.mappers = mappers;
  }

  /** The codec, or {@code null} when the application has no single JsonMapper bean. */
  public ResultCodec codecOrNull(String... allowedPatterns) {
    JsonMapper mapper = mappers.getIfUnique();
    return mapper == null ? null : JacksonCodecFactory.create(mapper, allowedPatterns);
  }
}
