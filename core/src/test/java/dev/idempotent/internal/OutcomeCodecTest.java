package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.ResultCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The outcome bytes of a result declared as {@code byte[]}: the bytes themselves, without the
 * result codec.
 */
class OutcomeCodecTest {
  /** A result codec that must not be used. */
  private static final ResultCodec UNUSED =
      new ResultCodec() {
        @Override
        public void encode(Object value, Type type, OutputStream out) throws IOException {
          throw new AssertionError("the result codec encoded a byte[] result");
        }

        @Override
        public Object decode(InputStream in, Type type) throws IOException {
          throw new AssertionError("the result codec decoded a byte[] result");
        }
      };

  private final OutcomeCodec outcomes = new OutcomeCodec(UNUSED);

  @Test
  void aByteArrayResultIsRecordedAsItsBytesAndReadBackAsACopy() {
    byte[] value = "{\"id\":42}".getBytes(StandardCharsets.UTF_8);

    byte[] recorded = outcomes.encodeValue(value, byte[].class);
    Object back = outcomes.decodeValue(recorded, byte[].class);

    assertThat(recorded).hasSize(value.length + 1);
    assertThat(back).isEqualTo(value).isNotSameAs(value);
    assertThat(outcomes.decodeValue(recorded, Object.class)).isEqualTo(value);
    assertThat(OutcomeCodec.isFailure(recorded)).isFalse();
  }

  @Test
  void anEmptyByteArrayReadsBackEmpty() {
    assertThat(
            (byte[])
                outcomes.decodeValue(outcomes.encodeValue(new byte[0], byte[].class), byte[].class))
        .isEmpty();
  }

  @Test
  void recordedBytesAreNotReadBackAsAnotherDeclaredType() {
    byte[] recorded = outcomes.encodeValue(new byte[] {1, 2, 3}, byte[].class);

    assertThatThrownBy(() -> outcomes.decodeValue(recorded, String.class))
        .isInstanceOf(OutcomeCodec.UnreadableOutcomeException.class)
        .hasMessageContaining(
            "the recorded result is a byte[], but the method returns java.lang.String");
  }

  @Test
  void aByteArrayInAnotherDeclaredTypeStillGoesThroughTheResultCodec() {
    assertThatThrownBy(() -> outcomes.encodeValue(new byte[] {1}, Object.class))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the result codec encoded");
  }
}
