package dev.idempotent.internal.codec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Hostile and plain serialization streams, built in the tests (no host is ever resolved). */
public final class Payloads {
  private Payloads() {}

  /** A class outside the packages of the tests' result types, for the allow-list cases. */
  public record Note(String text) implements Serializable {}

  /**
   * 27 bytes (28 with the outcome's kind byte): a {@code long[]} of 67,108,864 elements (512 MB)
   * and no elements.
   */
  public static final byte[] HUGE_ARRAY = {
    (byte) 0xAC,
    (byte) 0xED,
    0,
    5,
    0x75,
    0x72,
    0,
    2,
    '[',
    'J',
    0x78,
    0x20,
    0x04,
    (byte) 0xB5,
    0x12,
    (byte) 0xB1,
    0x75,
    (byte) 0x93,
    2,
    0,
    0,
    0x78,
    0x70,
    0x04,
    0,
    0,
    0
  };

  public static byte[] serialize(Object value) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    return bytes.toByteArray();
  }

  /**
   * The URLDNS payload: a HashMap whose key is a URL. Reading it back hashes the URL, which
   * resolves its host. The map is built with a handler that does not resolve, so building it makes
   * no lookup either.
   */
  public static byte[] urlDns() throws IOException {
    URLStreamHandler offline =
        new URLStreamHandler() {
          @Override
          protected URLConnection openConnection(URL u) {
            throw new UnsupportedOperationException();
          }

          @Override
          protected int hashCode(URL u) {
            return 0;
          }
        };
    HashMap<URL, String> map = new HashMap<>();
    map.put(new URL(null, "http://attacker.example.invalid/", offline), "x");
    return serialize(map);
  }

  /**
   * {@code levels} levels of {@code width} sets, each set holding every set of the next level:
   * hashing the root unfolds {@code width^levels} sets. With width 2 and 40 levels it is the 2.3 KB
   * "billion laughs" of Java serialization.
   */
  public static Set<Object> nestedSets(int levels, int width) {
    Set<Object> root = new HashSet<>();
    List<Set<Object>> previous = List.of(root);
    for (int i = 0; i < levels; i++) {
      List<Set<Object>> next = new ArrayList<>();
      for (int j = 0; j < width; j++) {
        Set<Object> s = new HashSet<>();
        s.add(j); // the sets of one level differ
        next.add(s);
      }
      for (Set<Object> p : previous) {
        p.addAll(next);
      }
      previous = next;
    }
    return root;
  }
}
