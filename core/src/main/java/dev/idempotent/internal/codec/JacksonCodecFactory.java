package dev.idempotent.internal.codec;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;

/** Creates the Jackson codec only when {@code jackson-databind} is on the classpath. */
public final class JacksonCodecFactory {
  private JacksonCodecFactory() {}

  public static ResultCodec create() {
    try {
      Class.forName("com.fasterxml.jackson.databind.ObjectMapper", false, JacksonCodecFactory.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IdempotencyConfigurationException("the Jackson codec needs com.fasterxml.jackson.core:jackson-databind"
          + " on the classpath: add that dependency, or use the default codec (idempotent.codec=java)", e);
    }
    return new JacksonResultCodec();
  }
}
