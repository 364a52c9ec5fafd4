package dev.idempotent.spring.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotent.ResultCodec;
import dev.idempotent.internal.codec.JacksonCodecFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The jackson codec on a copy of the application's Jackson 2 {@link ObjectMapper} bean. Defined
 * only when Jackson 2 is on the classpath.
 */
public final class ApplicationObjectMapperCodec {
  private final ObjectProvider<ObjectMapper> mappers;

  public ApplicationObjectMapperCodec(ObjectProvider<ObjectMapper> mappers) {
    this.mappers = mappers;
  }

  /** The codec, or {@code null} when the application has no single ObjectMapper bean. */
  public ResultCodec codecOrNull(String... allowedPatterns) {
    ObjectMapper mapper = mappers.getIfUnique();
    return mapper == null ? null : JacksonCodecFactory.create(mapper, allowedPatterns);
  }
}
