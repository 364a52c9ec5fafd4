package dev.idempotent.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import dev.idempotent.ResultCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both Jackson codecs check the class named by a polymorphic type id against the allow-list of the
 * declared result type before Jackson loads it, and never use the application mapper's default
 * typing.
 */
class JacksonTypeIdsTest {
  /** A result whose {@code detail} carries its class name in the JSON. */
  public record Envelope(String id, @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS) Object detail) {}

  public record Detail(String note) {}

  public record Item(String sku) {}

  static Stream<Arguments> codecs() {
    Function<String[], ResultCodec> jackson2 = Jackson2ResultCodec::new;
    Function<String[], ResultCodec> jackson3 = Jackson3ResultCodec::new;
    return Stream.of(Arguments.of("jackson2", jackson2), Arguments.of("jackson3", jackson3));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void aTypeIdInTheResultTypesPackageReadsBack(String line, Function<String[], ResultCodec> codec)
      throws IOException {
    ResultCodec c = codec.apply(new String[0]);
    Envelope envelope = new Envelope("e", new Detail("n"));

    String json = encode(c, envelope);

    assertThat(json).contains("\"@class\":\"" + Detail.class.getName() + "\"");
    assertThat(decode(c, json)).isEqualTo(envelope);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void aTypeIdOnTheDenyListIsRefusedWhateverTheAllowListSays(
      String line, Function<String[], ResultCodec> codec) {
    ResultCodec c = codec.apply(new String[] {"java.**"});
    String json = "{\"id\":\"e\",\"detail\":{\"@class\":\"java.net.URL\",\"x\":1}}";

    assertThatThrownBy(() -> decode(c, json))
        .hasMessageContaining("class java.net.URL is refused by the Jackson codec");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void aTypeIdOutsideTheAllowListIsRefusedNamingTheFix(
      String line, Function<String[], ResultCodec> codec) {
    ResultCodec c = codec.apply(new String[0]);
    String json = "{\"id\":\"e\",\"detail\":{\"@class\":\"org.example.Gadget\",\"x\":1}}";

    assertThatThrownBy(() -> decode(c, json))
        .hasMessageContaining("org.example.Gadget is not in the allow-list of the Jackson codec")
        .hasMessageContaining("idempotent.codec.allow=org.example.*")
        .hasMessageContaining("ResultCodec.jackson(\"org.example.*\")");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void anAllowPatternAdmitsATypeIdOutsideTheResultTypesPackage(
      String line, Function<String[], ResultCodec> codec) throws IOException {
    ResultCodec admitting = codec.apply(new String[] {"java.util.concurrent.atomic.*"});
    ResultCodec strict = codec.apply(new String[0]);
    String gadget = "{\"id\":\"e\",\"detail\":{\"@class\":\"java.util.concurrent.atomic.X\"}}";

    assertThatThrownBy(() -> decode(strict, gadget))
        .hasMessageContaining("java.util.concurrent.atomic.X is not in the allow-list");
    // admitted by the pattern, so Jackson goes on to load the class, which is not there
    assertThatThrownBy(() -> decode(admitting, gadget))
        .hasMessageNotContaining("allow-list")
        .hasMessageContaining("java.util.concurrent.atomic.X");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void theApplicationMappersDefaultTypingIsNotUsed(
      String line, Function<String[], ResultCodec> ignored) throws IOException {
    ResultCodec c;
    if (line.equals("jackson2")) {
      com.fasterxml.jackson.databind.ObjectMapper typing =
          new com.fasterxml.jackson.databind.ObjectMapper();
      typing.activateDefaultTyping(
          BasicPolymorphicTypeValidator.builder().allowIfBaseType(Object.class).build(),
          com.fasterxml.jackson.databind.ObjectMapper.DefaultTyping.EVERYTHING);
      c = new Jackson2ResultCodec(typing);
    } else {
      tools.jackson.databind.ObjectMapper typing =
          tools.jackson.databind.json.JsonMapper.builder()
              .activateDefaultTyping(
                  tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator.builder()
                      .allowIfBaseType(Object.class)
                      .build(),
                  tools.jackson.databind.DefaultTyping.NON_FINAL)
              .build();
      c = new Jackson3ResultCodec(typing);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    c.encode(List.of(new Item("a")), List.class, out);

    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("[{\"sku\":\"a\"}]");
  }

  private static String encode(ResultCodec codec, Envelope value) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    codec.encode(value, Envelope.class, out);
    return out.toString(StandardCharsets.UTF_8);
  }

  private static Object decode(ResultCodec codec, String json) throws IOException {
    return codec.decode(
        new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), Envelope.class);
  }
}
