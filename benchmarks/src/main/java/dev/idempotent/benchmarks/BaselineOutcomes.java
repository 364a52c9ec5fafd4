package dev.idempotent.benchmarks;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;

/**
 * The outcome encoding of the baselines, the same as the library's default: the value kind byte
 * {@code 'C'} and the codec's format name ({@code java}), then Java serialization; reading back
 * goes through an allow-list filter of the same form.
 */
final class BaselineOutcomes {
  private static final byte[] VALUE = {'C', 4, 'j', 'a', 'v', 'a'};
  private static final ObjectInputFilter FILTER =
      ObjectInputFilter.Config.createFilter(
          "maxdepth=64;maxrefs=1000000;maxarray=67108864;java.lang.*;java.util.*;java.time.*;java.math.*;"
              + "java.net.URI;java.net.URL;dev.idempotent.benchmarks.*;!*");

  private BaselineOutcomes() {}

  static byte[] encode(Object value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    out.write(VALUE, 0, VALUE.length);
    try (ObjectOutputStream oos = new ObjectOutputStream(out)) {
      oos.writeObject(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  static Receipt decode(byte[] outcome) {
    if (outcome == null
        || outcome.length < VALUE.length
        || !java.util.Arrays.equals(outcome, 0, VALUE.length, VALUE, 0, VALUE.length)) {
      throw new IllegalStateException("not a recorded value");
    }
    try (ObjectInputStream in =
        new ObjectInputStream(
            new ByteArrayInputStream(outcome, VALUE.length, outcome.length - VALUE.length))) {
      in.setObjectInputFilter(FILTER);
      return (Receipt) in.readObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }
}
