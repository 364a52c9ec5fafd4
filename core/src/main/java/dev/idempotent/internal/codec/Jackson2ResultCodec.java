package dev.idempotent.internal.codec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.jsontype.PolymorphicTypeValidator;
import dev.idempotent.ResultCodec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Type;

/**
 * JSON through Jackson 2 ({@code com.fasterxml.jackson}), on a copy of one {@link ObjectMapper},
 * typed by the declared (generic) result type. Format {@value #FORMAT}; it reads what the Jackson 3
 * codec writes too ({@link JacksonFormats}). Class names in polymorphic type ids are checked
 * against the allow-list of the declared result type ({@link PolymorphicTypeIds}); the copy has no
 * default typing.
 */
final class Jackson2ResultCodec implements ResultCodec {
  static final String FORMAT = JacksonFormats.JACKSON2;

  private final ObjectMapper mapper;
  private final AllowListsByResultType allowLists;

  Jackson2ResultCodec(String... allowedPatterns) {
    this(new ObjectMapper().findAndRegisterModules(), allowedPatterns);
  }

  /**
   * On a copy of {@code base} (an application's configured mapper), with the settings the codec
   * relies on.
   */
  Jackson2ResultCodec(ObjectMapper base, String... allowedPatterns) {
    this.allowLists =
        new AllowListsByResultType(allowedPatterns, "the Jackson codec", "ResultCodec.jackson");
    ObjectMapper copy = base.copy();
    copy.deactivateDefaultTyping();
    copy.setPolymorphicTypeValidator(new TypeIdValidator());
    this.mapper =
        copy.configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false)
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
            .configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
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
    mapper.writerFor(mapper.constructType(type)).writeValue(out, value);
  }

  @Override
  public Object decode(InputStream in, Type type) throws IOException {
    byte[] json = JavaSerializationCodec.readAtMostMaxBytes(in);
    JavaType jt = mapper.constructType(type);
    return mapper
        .readerFor(jt)
        .withAttribute(PolymorphicTypeIds.ATTRIBUTE, allowLists.of(type))
        .readValue(new ByteArrayInputStream(json));
  }

  /** {@link PolymorphicTypeIds}' rule as Jackson 2's validator. */
  private static final class TypeIdValidator extends PolymorphicTypeValidator.Base {
    private static final long serialVersionUID = 1L;

    @Override
    public Validity validateSubClassName(
        MapperConfig<?> config, JavaType baseType, String subClassName)
        throws JsonMappingException {
      String refusal =
          PolymorphicTypeIds.refusal(
              config.getAttributes().getAttribute(PolymorphicTypeIds.ATTRIBUTE), subClassName);
      if (refusal != null) {
        throw new JsonMappingException(null, refusal);
      }
      return Validity.ALLOWED;
    }

    @Override
    public Validity validateSubType(MapperConfig<?> config, JavaType baseType, JavaType subType)
        throws JsonMappingException {
      return validateSubClassName(config, baseType, subType.getRawClass().getName());
    }
  }
}
