package dev.idempotent.internal.codec;

import dev.idempotent.ResultCodec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Type;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.databind.DatabindContext;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.PolymorphicTypeValidator;

/**
 * JSON through Jackson 3 ({@code tools.jackson}), on a rebuilt copy of one {@link ObjectMapper},
 * typed by the declared (generic) result type. Format {@value #FORMAT}; it reads what the Jackson 2
 * codec writes too ({@link JacksonFormats}). Class names in polymorphic type ids are checked
 * against the allow-list of the declared result type ({@link PolymorphicTypeIds}); the copy has no
 * default typing. Jackson's own exceptions (unchecked in Jackson 3) leave {@link #decode} and
 * {@link #encode} as {@link IOException}s, as the codec contract says.
 */
final class Jackson3ResultCodec implements ResultCodec {
  static final String FORMAT = JacksonFormats.JACKSON3;

  private final ObjectMapper mapper;
  private final AllowListsByResultType allowLists;

  Jackson3ResultCodec(String... allowedPatterns) {
    this(JsonMapper.builder().findAndAddModules().build(), allowedPatterns);
  }

  /**
   * On a copy of {@code base} (an application's configured mapper), with the settings the codec
   * relies on.
   */
  Jackson3ResultCodec(ObjectMapper base, String... allowedPatterns) {
    this.allowLists =
        new AllowListsByResultType(allowedPatterns, "the Jackson codec", "ResultCodec.jackson");
    this.mapper =
        base.rebuild()
            .deactivateDefaultTyping()
            .polymorphicTypeValidator(new TypeIdValidator())
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false)
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
            .configure(StreamWriteFeature.AUTO_CLOSE_TARGET, false)
            .build();
  }

  @Override
  public String format() {
    return FORMAT;
  }

  @Override
  public boolean reads(String format) {
    return JacksonFormats.isJson(format);
  }

  @Override
  public void encode(Object value, Type type, OutputStream out) throws IOException {
    try {
      mapper.writerFor(mapper.constructType(type)).writeValue(out, value);
    } catch (JacksonException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  @Override
  public Object decode(InputStream in, Type type) throws IOException {
    byte[] json = JavaSerializationCodec.readAtMostMaxBytes(in);
    try {
      return mapper
          .readerFor(mapper.constructType(type))
          .withAttribute(PolymorphicTypeIds.ATTRIBUTE, allowLists.of(type))
          .readValue(new ByteArrayInputStream(json));
    } catch (JacksonException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /** {@link PolymorphicTypeIds}' rule as Jackson 3's validator. */
  private static final class TypeIdValidator extends PolymorphicTypeValidator.Base {
    private static final long serialVersionUID = 1L;

    @Override
    public Validity validateSubClassName(
        DatabindContext ctxt, JavaType baseType, String subClassName) {
      String refusal =
          PolymorphicTypeIds.refusal(ctxt.getAttribute(PolymorphicTypeIds.ATTRIBUTE), subClassName);
      if (refusal != null) {
        throw DatabindException.from((tools.jackson.core.JsonParser) null, refusal);
      }
      return Validity.ALLOWED;
    }

    @Override
    public Validity validateSubType(DatabindContext ctxt, JavaType baseType, JavaType subType) {
      return validateSubClassName(ctxt, baseType, subType.getRawClass().getName());
    }
  }
}
