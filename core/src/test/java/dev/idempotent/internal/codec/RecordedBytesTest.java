package dev.idempotent.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.ResultCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

/**
 * A recorded outcome read in place ({@link RecordedBytes}: the record's array, the codec's bytes
 * after its first byte) gets every check a copied stream gets, and its array is left as it was.
 */
class RecordedBytesTest {
  private final ResultCodec codec = ResultCodec.javaSerialization();

  /** {@code payload} behind one byte of the record's own, as the library stores an outcome. */
  private static byte[] record(byte[] payload) {
    byte[] record = new byte[payload.length + 1];
    record[0] = 'V';
    System.arraycopy(payload, 0, record, 1, payload.length);
    return record;
  }

  private Object decodeInPlace(byte[] record, Class<?> type) throws IOException {
    return codec.decode(new RecordedBytes(record, 1), type);
  }

  @Test
  void aValueReadsBackInPlaceAndTheRecordIsLeftAsItWas() throws IOException {
    List<String> value = new ArrayList<>(List.of("a", "b"));
    byte[] record = record(Payloads.serialize(value));
    byte[] before = record.clone();
    RecordedBytes in = new RecordedBytes(record, 1);
    assertThat(codec.decode(in, List.class)).isEqualTo(value);
    assertThat(record).isEqualTo(before);
    assertThat(in.available()).isZero();
  }

  @Test
  void classesOutsideTheAllowListAndDeniedClassesAreRefusedInPlace() throws IOException {
    byte[] note = record(Payloads.serialize(new ArrayList<>(List.of(new Payloads.Note("n")))));
    assertThatThrownBy(() -> decodeInPlace(note, List.class))
        .hasMessageContaining(Payloads.Note.class.getName())
        .hasMessageContaining("idempotent.codec.allow");
    byte[] queue = record(Payloads.serialize(new PriorityQueue<>(List.of("a", "b"))));
    assertThatThrownBy(() -> decodeInPlace(queue, PriorityQueue.class))
        .hasMessageContaining("java.util.PriorityQueue");
  }

  @Test
  void truncatedOrTrailingBytesAreCorruptInPlace() throws IOException {
    byte[] bytes = Payloads.serialize(new ArrayList<>(List.of("a", "b")));
    assertThatThrownBy(
            () -> decodeInPlace(record(Arrays.copyOf(bytes, bytes.length - 3)), List.class))
        .hasMessageContaining("end in the middle");
    assertThatThrownBy(
            () -> decodeInPlace(record(Arrays.copyOf(bytes, bytes.length + 1)), List.class))
        .hasMessageContaining("go on after");
    assertThatThrownBy(() -> decodeInPlace(new byte[] {'V'}, List.class))
        .isInstanceOf(IOException.class);
  }

  @Test
  void aStreamPartlyReadAlreadyIsReadOnFromWhereItIs() throws IOException {
    List<String> value = new ArrayList<>(List.of("a"));
    byte[] payload = Payloads.serialize(value);
    byte[] record = new byte[payload.length + 2];
    System.arraycopy(payload, 0, record, 2, payload.length);
    RecordedBytes in = new RecordedBytes(record, 1);
    assertThat(in.read()).isZero(); // one byte gone: the rest is the codec's
    assertThat(codec.decode(in, List.class)).isEqualTo(value);
  }
}
