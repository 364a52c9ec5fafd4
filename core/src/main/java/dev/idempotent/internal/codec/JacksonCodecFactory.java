package dev.idempotent.internal.codec;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;

/**
 * Creates the Jackson codecs, each only when its Jackson line is on the class path: Jackson 3
 * ({@code tools.jackson.core:jackson-databind}) and Jackson 2 ({@code
 * com.fasterxml.jackson.core:jackson-databind}). Where both are, {@link #create(String...)} takes
 * Jackson 3, the line Spring Boot 4 and Spring Framework 7 default to; the two read each other's
 * records.
 */
public final class JacksonCodecFactory {
  static final String JACKSON2_MAPPER = "com.fasterxml.jackson.databind.ObjectMapper";
  static final String JACKSON3_MAPPER = "tools.jackson.databind.ObjectMapper";

  private JacksonCodecFactory() {}

  /** Jackson 3 when it is on the class path, else Jackson 2; else a configuration error. */
  public static ResultCodec create(String... allowedPatterns) {
    if (present(JACKSON3_MAPPER)) {
      return new Jackson3ResultCodec(allowedPatterns);
    }
    if (present(JACKSON2_MAPPER)) {
      return new Jackson2ResultCodec(allowedPatterns);
    }
    throw new IdempotencyConfigurationException(
        "the Jackson codec needs tools.jackson.core:jackson-databind (Jackson 3) or"
            + " com.fasterxml.jackson.core:jackson-databind (Jackson 2) on the class path: add one,"
            + " or use the default codec (idempotent.codec=java)");
  }

  /** The Jackson 2 codec; a configuration error when Jackson 2 is not on the class path. */
  public static ResultCodec createJackson2(String... allowedPatterns) {
    require(JACKSON2_MAPPER, "com.fasterxml.jackson.core:jackson-databind", "Jackson 2");
    return new Jackson2ResultCodec(allowedPatterns);
  }

  /** The Jackson 3 codec; a configuration error when Jackson 3 is not on the class path. */
  public static ResultCodec createJackson3(String... allowedPatterns) {
    require(JACKSON3_MAPPER, "tools.jackson.core:jackson-databind", "Jackson 3");
    return new Jackson3ResultCodec(allowedPatterns);
  }

  /**
   * The Jackson codec on a copy of {@code objectMapper}, a Jackson 3 {@code
   * tools.jackson.databind.ObjectMapper} (a {@code JsonMapper}) or a Jackson 2 {@code
   * com.fasterxml.jackson.databind.ObjectMapper} (for example the one a Spring Boot application
   * configures), so results are written with its modules and naming.
   */
  public static ResultCodec create(Object objectMapper, String... allowedPatterns) {
    if (isA(objectMapper, JACKSON3_MAPPER)) {
      return new Jackson3ResultCodec(
          (tools.jackson.databind.ObjectMapper) objectMapper, allowedPatterns);
    }
    if (isA(objectMapper, JACKSON2_MAPPER)) {
      return new Jackson2ResultCodec(
          (com.fasterxml.jackson.databind.ObjectMapper) objectMapper, allowedPatterns);
    }
    throw new IllegalArgumentException(
        "not a Jackson 3 or Jackson 2 ObjectMapper: "
            + (objectMapper == null ? null : objectMapper.getClass().getName()));
  }

  /** By name, so that neither Jackson line must be on the class path to ask. */
  private static boolean isA(Object object, String className) {
    for (Class<?> c = object == null ? null : object.getClass(); c != null; c = c.getSuperclass()) {
      if (c.getName().equals(className)) {
        return true;
      }
    }
    return false;
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, JacksonCodecFactory.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static void require(String className, String artifact, String line) {
    if (!present(className)) {
      throw new IdempotencyConfigurationException(
          "the "
              + line
              + " codec needs "
              + artifact
              + " on the class path: add that dependency, or use the default codec"
              + " (idempotent.codec=java)");
    }
  }
}
