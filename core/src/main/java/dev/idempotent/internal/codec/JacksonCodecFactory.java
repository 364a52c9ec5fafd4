package dev.idempotent.internal.codec;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;

/** Creates the Jackson codec only when {@code jackson-databind} is on the classpath. */
public final class JacksonCodecFactory {
  private JacksonCodecFactory() {}

  public static ResultCodec create() {
    try {
      Class.forName(
          "com.fasterxml.jackson.databind.ObjectMapper",
          false,
          JacksonCodecFactory.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IdempotencyConfigurationException(
          "the Jackson codec needs com.fasterxml.jackson.core:jackson-databind on the classpath:"
              + " add that dependency, or use the default codec (idempotent.codec=java)",
          e);
    }
    return new JacksonResultCodec();
  }

  /**
   * The Jackson codec on a copy of {@code objectMapper}, a {@code
   * com.fasterxml.jackson.databind.ObjectMapper} (for example the one a Spring Boot application
   * configures), so results are written with its modules and naming.
   */
  public static ResultCodec create(Object objectMapper) {
    if (!(objectMapper instanceof com.fasterxml.jackson.databind.ObjectMapper mapper)) {
      throw new IllegalArgumentException("not a Jackson 2 ObjectMapper: " + objectMapper);
    }
    return new JacksonResultCodec(mapper);
  }
}
