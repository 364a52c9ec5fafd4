package dev.idempotent.internal.codec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.idempotent.ResultCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Type;

/** JSON through one shared {@link ObjectMapper}, typed by the declared (generic) result type. */
final class JacksonResultCodec implements ResultCodec {
  private final ObjectMapper mapper;

  JacksonResultCodec() {
    this(new ObjectMapper().findAndRegisterModules());
  }

  /**
   * On a copy of {@code base} (an application's configured mapper), with the settings the codec
   * relies on.
   */
  JacksonResultCodec(ObjectMapper base) {
    this.mapper =
        base.copy()
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false)
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
            .configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
  }

  @Override
  public void encode(Object value, Type type, OutputStream out) throws IOException {
    mapper.writerFor(mapper.constructType(type)).writeValue(out, value);
  }

  @Override
  public Object decode(InputStream in, Type type) throws IOException {
    JavaType jt = mapper.constructType(type);
    return mapper.readValue(in, jt);
  }
}
