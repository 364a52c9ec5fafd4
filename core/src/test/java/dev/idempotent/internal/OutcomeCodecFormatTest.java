package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;
import dev.idempotent.internal.OutcomeCodec.UnreadableOutcomeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Outcome format 2: every recorded value names the format of the codec that wrote it; a codec reads
 * only the formats it says it reads, so Jackson 2 and Jackson 3 read each other's records and the
 * Java codec refuses theirs (and they its) with a message naming both.
 */
class OutcomeCodecFormatTest {
  public enum Status {
    OPEN,
    SHIPPED
  }

  public record Line(String sku, int quantity, BigDecimal price) {}

  public record Order(
      String id,
      long version,
      boolean paid,
      double weight,
      Status status,
      String note,
      List<Line> lines,
      Map<String, Integer> counts,
      int[] codes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Order other
          && id.equals(other.id)
          && version == other.version
          && paid == other.paid
          && weight == other.weight
          && status == other.status
          && java.util.Objects.equals(note, other.note)
          && lines.equals(other.lines)
          && counts.equals(other.counts)
          && Arrays.equals(codes, other.codes);
    }

    @Override
    public int hashCode() {
      return id.hashCode();
    }
  }

  static final Order ORDER =
      new Order(
          "o-1",
          7L,
          true,
          1.25,
          Status.SHIPPED,
          null,
          List.of(new Line("a", 2, new BigDecimal("9.90")), new Line("b", 1, BigDecimal.ONE)),
          Map.of("z", 1, "a", 2),
          new int[] {3, 1});

  static Stream<Arguments> writerAndReader() {
    return Stream.of(
        Arguments.of(ResultCodec.jackson2(), ResultCodec.jackson3()),
        Arguments.of(ResultCodec.jackson3(), ResultCodec.jackson2()),
        Arguments.of(ResultCodec.jackson2(), ResultCodec.jackson2()),
        Arguments.of(ResultCodec.jackson3(), ResultCodec.jackson3()));
  }

  @ParameterizedTest
  @MethodSource("writerAndReader")
  void jackson2AndJackson3ReadEachOthersRecords(ResultCodec writer, ResultCodec reader) {
    byte[] recorded = new OutcomeCodec(writer).encodeValue(ORDER, Order.class);

    Object back = new OutcomeCodec(reader).decodeValue(recorded, Order.class);

    assertThat(back).isEqualTo(ORDER);
    assertThat(header(recorded)).isEqualTo("C" + (char) writer.format().length() + writer.format());
  }

  @Test
  void theRecordNamesTheCodecThatWroteIt() {
    assertThat(header(new OutcomeCodec(ResultCodec.jackson2()).encodeValue("x", String.class)))
        .isEqualTo("C\u0008jackson2");
    assertThat(header(new OutcomeCodec(ResultCodec.jackson3()).encodeValue("x", String.class)))
        .isEqualTo("C\u0008jackson3");
    assertThat(
            header(
                new OutcomeCodec(ResultCodec.javaSerialization()).encodeValue("x", String.class)))
        .isEqualTo("C\u0004java");
    byte[] json = new OutcomeCodec(ResultCodec.jackson3()).encodeValue("x", String.class);
    assertThat(new String(json, 10, json.length - 10, StandardCharsets.UTF_8)).isEqualTo("\"x\"");
  }

  @Test
  void withBothJacksonLinesOnTheClassPathTheJacksonCodecIsJackson3() {
    assertThat(ResultCodec.jackson().format()).isEqualTo("jackson3");
    assertThat(ResultCodec.jackson2().format()).isEqualTo("jackson2");
    assertThat(ResultCodec.javaSerialization().format()).isEqualTo("java");
  }

  @Test
  void theJavaCodecRefusesAJacksonRecordNamingBothFormats() {
    byte[] json = new OutcomeCodec(ResultCodec.jackson3()).encodeValue("x", String.class);
    OutcomeCodec java = new OutcomeCodec(ResultCodec.javaSerialization());

    assertThatThrownBy(() -> java.decodeValue(json, String.class))
        .isInstanceOf(UnreadableOutcomeException.class)
        .hasMessageContaining("format 'jackson3'")
        .hasMessageContaining("format 'java'")
        .hasMessageContaining("the codec was changed");
  }

  @Test
  void aJacksonCodecRefusesAJavaSerializationRecord() {
    byte[] serialized =
        new OutcomeCodec(ResultCodec.javaSerialization()).encodeValue("x", String.class);

    assertThatThrownBy(
            () -> new OutcomeCodec(ResultCodec.jackson2()).decodeValue(serialized, String.class))
        .isInstanceOf(UnreadableOutcomeException.class)
        .hasMessageContaining("format 'java'")
        .hasMessageContaining("format 'jackson2'");
  }

  @Test
  void aCustomCodecReadsOnlyItsOwnFormatByDefaultNamedByItsClass() {
    ResultCodec custom = new Utf8Codec();
    byte[] recorded = new OutcomeCodec(custom).encodeValue("x", String.class);

    assertThat(custom.format()).isEqualTo(Utf8Codec.class.getName());
    assertThat(new OutcomeCodec(custom).decodeValue(recorded, String.class)).isEqualTo("x");
    assertThatThrownBy(
            () ->
                new OutcomeCodec(ResultCodec.javaSerialization())
                    .decodeValue(recorded, String.class))
        .isInstanceOf(UnreadableOutcomeException.class)
        .hasMessageContaining(Utf8Codec.class.getName());
  }

  @Test
  void aValueOfOutcomeFormat1IsRefusedSayingSo() {
    byte[] recorded = new OutcomeCodec(new Utf8Codec()).encodeValue("x", String.class);
    byte[] version1 = new byte[recorded.length - Utf8Codec.class.getName().length() - 1];
    version1[0] = 'V';
    version1[1] = 'x';

    assertThatThrownBy(() -> new OutcomeCodec(new Utf8Codec()).decodeValue(version1, String.class))
        .isInstanceOf(UnreadableOutcomeException.class)
        .hasMessageContaining("outcome format 1");
  }

  @Test
  void aTruncatedFormatNameIsRefused() {
    byte[] truncated = {'C', 20, 'j', 'a'};

    assertThatThrownBy(
            () -> new OutcomeCodec(ResultCodec.jackson3()).decodeValue(truncated, String.class))
        .isInstanceOf(UnreadableOutcomeException.class)
        .hasMessageContaining("truncated");
  }

  @Test
  void aFormatNameThatCannotBeStoredIsAConfigurationError() {
    for (String bad : new String[] {"", "with space", "é", "x".repeat(256)}) {
      ResultCodec named =
          new Utf8Codec() {
            @Override
            public String format() {
              return bad;
            }
          };
      assertThatThrownBy(() -> new OutcomeCodec(named))
          .as(bad)
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining("format name");
    }
  }

  private static String header(byte[] recorded) {
    int n = recorded[1];
    return new String(recorded, 0, n + 2, StandardCharsets.ISO_8859_1);
  }

  /** Strings as UTF-8, nothing else. */
  static class Utf8Codec implements ResultCodec {
    @Override
    public void encode(Object value, Type type, OutputStream out) throws IOException {
      out.write(((String) value).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public Object decode(InputStream in, Type type) throws IOException {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
