package dev.idempotent.benchmarks;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;

/**
 * The outcome encoding of the baselines, the same as the library's default: one kind byte {@code
 * 'V'}, then Java serialization; reading back goes through an allow-list filter of the same form.
 */
final class BaselineOutcomes {
  private static final byte VALUE = 'V';
  private static final ObjectInputFilter FILTER =
      ObjectInputFilter.Config.createFilter(
          "maxdepth=64;maxrefs=1000000;maxarray=67108864;java.lang.*;java.util.*;java.time.*;java.math.*;"
              + "java.net.URI;java.net.URL;dev.idempotent.benchmarks.*;!*");

  private BaselineOutcomes() {}

  static byte[] encode(Object value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    out.write(VALUE);
    try (ObjectOutputStream oos = new ObjectOutputStream(out)) {
      oos.writeObject(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  static Receipt decode(byte[] outcome) {
    if (outcome == null || outcome.length == 0 || outcome[0] != VALUE) {
      throw new IllegalStateException("not a recorded value");
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(outcome, 1, outcome.length - 1))) {
      in.setObjectInputFilter(FILTER);
      return (Receipt) in.readObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }
}
