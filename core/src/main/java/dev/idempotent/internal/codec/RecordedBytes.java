package dev.idempotent.internal.codec;

import java.io.ByteArrayInputStream;

/**
 * The bytes of a recorded outcome from {@code from} to the end of the array, as the stream a {@link
 * dev.idempotent.ResultCodec} reads. Any codec reads it as a stream; the library's Java
 * serialization codec checks and reads the bytes in place instead of copying them first. The array
 * is the record's: nothing writes to it.
 */
public final class RecordedBytes extends ByteArrayInputStream {
  private final int from;

  /** The bytes of {@code record} from {@code from} on. */
  public RecordedBytes(byte[] record, int from) {
    super(record, from, record.length - from);
    this.from = from;
  }

  /** Whether the stream still holds every byte from {@code from} to the end of the array. */
  boolean runsToEnd() {
    return pos == from && count == buf.length;
  }

  /** The record's array (not a copy: do not change it). */
  byte[] array() {
    return buf;
  }

  /** Where the codec's bytes start in {@link #array()}. */
  int from() {
    return from;
  }
}
