package dev.idempotent.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.idempotent.ResultCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.lang.reflect.Type;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Stored bytes are untrusted: what the Java serialization codec refuses, and what it lets through.
 */
class JavaSerializationCodecTest {
  record Item(String sku, int qty) implements Serializable {}

  record Node(Node left, Node right) implements Serializable {}

  static final Type LIST_OF_ITEMS =
      new Object() {
        @SuppressWarnings("unused")
        List<Item> field;
      }.getClass().getDeclaredFields()[0].getGenericType();

  private final ResultCodec codec = ResultCodec.javaSerialization();

  private Object decode(byte[] bytes, Type type) throws IOException {
    return codec.decode(new ByteArrayInputStream(bytes), type);
  }

  private static Object roundTrip(ResultCodec codec, Object value, Type type) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    codec.encode(value, type, out);
    return codec.decode(new ByteArrayInputStream(out.toByteArray()), type);
  }

  /**
   * No frame of ObjectInputStream: the bytes were refused before any object was created from them.
   */
  private static void refusedBeforeReading(Throwable refusal) {
    for (StackTraceElement frame : refusal.getStackTrace()) {
      assertThat(frame.getClassName()).isNotEqualTo("java.io.ObjectInputStream");
    }
  }

  /** Allows this test's own classes whatever the declared type. */
  private final ResultCodec testTypes =
      ResultCodec.javaSerialization("dev.idempotent.internal.codec.*");

  private static byte[] freshStreamBytes(Object value) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ObjectOutputStream oos = new ObjectOutputStream(out)) {
      oos.writeObject(value);
    }
    return out.toByteArray();
  }

  private static byte[] encoded(ResultCodec codec, Object value, Type type) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    codec.encode(value, type, out);
    return out.toByteArray();
  }

  /**
   * The codec keeps its output streams from one result to the next: every result must still be
   * written exactly as a new stream writes it, whatever was written before (the same classes, other
   * classes, a result that was refused half-way).
   */
  @Test
  void everyResultIsWrittenAsANewStreamWritesItWhateverCameBefore() throws IOException {
    List<Object> values =
        List.of(
            new Item("a", 1),
            new Item("a", 1),
            List.of(new Item("b", 2), new Item("c", 3)),
            "text",
            new HashMap<>(Map.of("k", new Item("d", 4))),
            largeList(20_000),
            new Item("e", 5));
    for (int round = 0; round < 3; round++) {
      for (Object value : values) {
        assertThat(encoded(testTypes, value, Object.class))
            .as("%s, round %s", value, round)
            .isEqualTo(freshStreamBytes(value));
      }
      assertThatThrownBy(
              () -> encoded(testTypes, List.of(new Item("x", 0), new Thread()), List.class))
          .hasMessageContaining("java.lang.Thread");
      assertThatThrownBy(() -> encoded(testTypes, new NotSerializableHolder(), Object.class))
          .hasMessageContaining("is not Serializable");
      assertThatThrownBy(() -> encoded(testTypes, new FailsWhileWritten(), Object.class))
          .hasMessageContaining("cannot write this one");
    }
  }

  /** More than 64 KiB once serialized: the stream that wrote it is not kept. */
  private static List<Item> largeList(int n) {
    List<Item> items = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      items.add(new Item("sku-" + i, i));
    }
    return items;
  }

  /** Not Serializable: the codec's stream is left half-way through a result. */
  static final class NotSerializableHolder {}

  /** Fails while it is written, with an exception ObjectOutputStream does not clean up after. */
  static final class FailsWhileWritten implements Serializable {
    private static final long serialVersionUID = 1L;
    final Item before = new Item("before", 0);

    private void writeObject(ObjectOutputStream out) throws IOException {
      out.defaultWriteObject();
      throw new IllegalStateException("cannot write this one");
    }
  }

  /** A value whose serialization records another result with the same codec, on the same thread. */
  static final class RecordsWhileWritten implements Serializable {
    private static final long serialVersionUID = 1L;
    transient ResultCodec codec;
    transient byte[] inner;

    private void writeObject(ObjectOutputStream out) throws IOException {
      out.defaultWriteObject();
      if (codec != null) {
        inner = encoded(codec, new Item("inner", 7), Item.class);
      }
    }
  }

  @Test
  void aResultWrittenWhileAnotherIsBeingWrittenGetsAStreamOfItsOwn() throws IOException {
    RecordsWhileWritten outer = new RecordsWhileWritten();
    outer.codec = testTypes;
    byte[] outerBytes = encoded(testTypes, outer, Object.class);
    assertThat(outer.inner).isEqualTo(freshStreamBytes(new Item("inner", 7)));
    assertThat(outerBytes).isEqualTo(freshStreamBytes(new RecordsWhileWritten()));
    assertThat(encoded(testTypes, new Item("after", 8), Item.class))
        .isEqualTo(freshStreamBytes(new Item("after", 8)));
  }

  /** A kept stream must not keep the results it wrote reachable. */
  @Test
  void aWrittenResultIsNotKeptReachableByTheCodec() throws Exception {
    Item value = new Item("held", 9);
    WeakReference<Item> ref = new WeakReference<>(value);
    encoded(codec, value, Item.class);
    value = null;
    for (int i = 0; i < 50 && ref.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }
    assertThat(ref.get()).as("the result after encoding and GC").isNull();
  }

  /**
   * A class described after many objects (its descriptor takes a handle where the check's tables
   * must grow): a list of n strings, then an Integer, whose descriptor comes after the n + 2
   * handles before it.
   */
  @Test
  void aClassDescribedWhereTheHandleTablesGrowReadsBack() throws IOException {
    for (int n = 1; n <= 140; n++) {
      List<Object> value = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        value.add("s" + i);
      }
      value.add(n);
      assertThat(roundTrip(codec, value, List.class))
          .as("%s strings, then an Integer", n)
          .isEqualTo(value);
    }
  }

  @Test
  void theUrlDnsPayloadIsRefusedBeforeAnyObjectIsCreated() throws IOException {
    byte[] payload = Payloads.urlDns();
    assertThatThrownBy(() -> decode(payload, Object.class))
        .hasMessageContaining("java.net.URL")
        .hasMessageContaining("I/O")
        .satisfies(JavaSerializationCodecTest::refusedBeforeReading);
    // even a method declared to return a map of URLs, or a pattern that admits java.net, does not
    // read it back
    assertThatThrownBy(
            () ->
                ResultCodec.javaSerialization("java.net.**")
                    .decode(new ByteArrayInputStream(payload), Map.class))
        .hasMessageContaining("java.net.URL");
    assertThatThrownBy(() -> decode(payload, URL.class)).hasMessageContaining("java.net.URL");
  }

  @Test
  void aShortRecordThatAsksForAHugeArrayIsRefusedWithoutAllocatingIt() {
    byte[] payload = Payloads.HUGE_ARRAY;
    assertThat(payload).hasSize(27);
    assertThatThrownBy(() -> decode(payload, Object.class))
        .hasMessageContaining("67108864 elements")
        .satisfies(JavaSerializationCodecTest::refusedBeforeReading);
  }

  /**
   * {@code bytes} with the first occurrence of {@code from} replaced by {@code to} (same length).
   */
  private static byte[] patched(byte[] bytes, byte[] from, byte[] to) {
    for (int i = 0; i + from.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + from.length, from, 0, from.length)) {
        byte[] out = bytes.clone();
        System.arraycopy(to, 0, out, i, to.length);
        return out;
      }
    }
    throw new AssertionError("pattern not found");
  }

  @Test
  void sizesThatAskForHugeTablesAreRefusedBeforeTheTableIsAllocated() throws IOException {
    // an empty HashMap whose recorded size says 16,777,216 entries: its table would have 33,554,432
    // slots
    byte[] map =
        patched(
            Payloads.serialize(new HashMap<>()),
            new byte[] {0x77, 8, 0, 0, 0, 16, 0, 0, 0, 0},
            new byte[] {0x77, 8, 0, 0, 0, 16, 1, 0, 0, 0});
    assertThatThrownBy(() -> decode(map, Map.class)).hasMessageContaining("33554432 elements");
    // an empty ArrayList whose size field says 60,000,000 elements
    byte[] list =
        patched(
            Payloads.serialize(new ArrayList<>()),
            new byte[] {0x78, 0x70, 0, 0, 0, 0, 0x77, 4},
            new byte[] {0x78, 0x70, 0x03, (byte) 0x93, (byte) 0x87, 0, 0x77, 4});
    assertThatThrownBy(() -> decode(list, List.class)).hasMessageContaining("60000000 elements");
  }

  @Test
  void nestedHashSetsThatWouldHashForeverAreRefusedQuickly() throws IOException {
    byte[] deep = Payloads.serialize(Payloads.nestedSets(40, 2));
    assertThat(deep.length).isBetween(2000, 2600);
    byte[] wide =
        Payloads.serialize(
            Payloads.nestedSets(14, 4)); // 4^14 unfolded sets, within any depth limit
    assertTimeoutPreemptively(
        Duration.ofSeconds(3),
        () -> {
          assertThatThrownBy(() -> decode(deep, Object.class))
              .hasMessageContaining("hash")
              .satisfies(JavaSerializationCodecTest::refusedBeforeReading);
          assertThatThrownBy(() -> decode(wide, Object.class)).hasMessageContaining("hash");
        });
  }

  @Test
  void theLargestNestedHashSetsWithinTheWorkLimitReadBackQuickly() throws IOException {
    ClassAllowList everything = new ClassAllowList(List.of("java.**"));
    int largest = 0;
    byte[] worst = null;
    for (int levels = 10; levels < 30; levels++) {
      byte[] bytes = Payloads.serialize(Payloads.nestedSets(levels, 2));
      try {
        SerializedStreamCheck.check(bytes, everything);
      } catch (IOException refused) {
        break;
      }
      largest = levels;
      worst = bytes;
    }
    assertThat(largest).isBetween(16, 28);
    byte[] payload = worst;
    long start = System.nanoTime();
    assertTimeoutPreemptively(Duration.ofSeconds(3), () -> decode(payload, Object.class));
    System.out.printf(
        "%d levels of nested sets read back in %d ms%n",
        largest, (System.nanoTime() - start) / 1_000_000);
  }

  @Test
  void limitsLetLegitimateOutcomesOfTheDocumentedSizesThrough() throws IOException {
    byte[] mebibyte = new byte[1024 * 1024];
    Arrays.fill(mebibyte, (byte) 7);
    assertThat((byte[]) roundTrip(codec, mebibyte, byte[].class)).isEqualTo(mebibyte);

    List<Item> items = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      items.add(new Item("sku-" + i, i));
    }
    assertThat(roundTrip(codec, items, LIST_OF_ITEMS)).isEqualTo(items);

    Map<String, Object> json = new HashMap<>();
    Map<String, Object> level = json;
    for (int i = 0; i < 30; i++) {
      Map<String, Object> child = new HashMap<>();
      level.put("child", child);
      level.put("name", "level " + i);
      level = child;
    }
    assertThat(roundTrip(codec, json, Map.class)).isEqualTo(json);

    Node shared = new Node(null, null); // a little sharing is fine
    Node tree = shared;
    for (int i = 0; i < 10; i++) {
      tree = new Node(tree, tree);
    }
    assertThat(roundTrip(codec, tree, Node.class)).isEqualTo(tree);
  }

  enum Colour {
    RED,
    GREEN
  }

  record Everything(Object[] values) implements Serializable {}

  @Test
  void valuesOfTheAllowedJdkPackagesReadBack() throws IOException {
    java.util.TreeMap<String, Integer> sorted =
        new java.util.TreeMap<>(java.util.Comparator.reverseOrder());
    sorted.put("a", 1);
    sorted.put("b", 2);
    java.util.BitSet bits = new java.util.BitSet();
    bits.set(3);
    bits.set(700);
    Object[] values = {
      "text",
      'c',
      (byte) 1,
      (short) 2,
      3,
      4L,
      5.0f,
      6.0,
      true,
      new int[][] {{1, 2}, {3}},
      new String[] {"a", null},
      new java.math.BigDecimal("12.345"),
      java.math.BigInteger.TEN.pow(40),
      new java.util.Date(0),
      java.time.Instant.EPOCH,
      java.time.LocalDate.of(2026, 12, 1),
      java.time.Duration.ofSeconds(5),
      java.time.ZonedDateTime.of(2026, 12, 1, 9, 0, 0, 0, java.time.ZoneId.of("Europe/Paris")),
      java.util.UUID.randomUUID(),
      java.util.Locale.FRANCE,
      java.net.URI.create("https://example.com/a"),
      List.of(1, 2, 3),
      Set.of("x"),
      Map.of("k", "v"),
      java.util.Collections.unmodifiableList(new ArrayList<>()),
      java.util.Collections.emptyMap(),
      Arrays.asList("p", "q"),
      new java.util.LinkedHashMap<>(Map.of("a", "b")),
      new java.util.ArrayDeque<>(List.of(1)),
      new java.util.EnumMap<>(Map.of(Colour.RED, 1)),
      Colour.GREEN,
      sorted,
      bits,
      java.util.Optional.class,
      new java.util.LinkedList<>(List.of("l")),
      new IllegalStateException("boom"),
      new java.util.concurrent.atomic.AtomicLong(1).getClass().getName(),
      new StringBuilder("sb").toString(),
    };
    Everything back = (Everything) roundTrip(codec, new Everything(values), Everything.class);
    assertThat(back.values()).hasSameSizeAs(values);
    for (int i = 0; i < values.length; i++) {
      if (values[i] instanceof Throwable t) {
        assertThat((Throwable) back.values()[i]).hasMessage(t.getMessage());
      } else if (values[i] instanceof java.util.ArrayDeque<?> deque) {
        assertThat(new ArrayList<Object>((java.util.ArrayDeque<?>) back.values()[i]))
            .isEqualTo(new ArrayList<Object>(deque));
      } else {
        assertThat(back.values()[i]).as("value %d", i).isEqualTo(values[i]);
      }
    }
  }

  @Test
  void deeperThanTheDepthLimitIsRefused() throws IOException {
    Node chain = null;
    for (int i = 0; i < 100; i++) {
      chain = new Node(chain, null);
    }
    byte[] bytes = Payloads.serialize(chain);
    assertThatThrownBy(() -> decode(bytes, Node.class))
        .hasMessageContaining("nested deeper than 64");
  }

  @Test
  void classesOutsideTheAllowListAreRefusedOnEncodingAndOnDecodingNamingTheFix()
      throws IOException {
    List<Object> holdsANote = new ArrayList<>(List.of(new Payloads.Note("n")));
    // the declared type is a List of java.util, so this package is not allowed
    assertThatThrownBy(() -> codec.encode(holdsANote, List.class, new ByteArrayOutputStream()))
        .hasMessageContaining(Payloads.Note.class.getName())
        .hasMessageContaining("idempotent.codec.allow");
    byte[] bytes = Payloads.serialize(holdsANote);
    assertThatThrownBy(() -> decode(bytes, List.class))
        .hasMessageContaining(Payloads.Note.class.getName())
        .hasMessageContaining("idempotent.codec.allow")
        .satisfies(JavaSerializationCodecTest::refusedBeforeReading);
    assertThat(
            ResultCodec.javaSerialization("dev.idempotent.internal.codec.*")
                .decode(new ByteArrayInputStream(bytes), List.class))
        .isEqualTo(holdsANote);
  }

  @Test
  void deniedClassesAreRefusedEvenInAllowedPackages() throws IOException {
    PriorityQueue<String> queue = new PriorityQueue<>(List.of("a", "b"));
    assertThatThrownBy(() -> codec.encode(queue, Object.class, new ByteArrayOutputStream()))
        .hasMessageContaining("java.util.PriorityQueue");
    byte[] bytes = Payloads.serialize(queue);
    assertThatThrownBy(() -> decode(bytes, PriorityQueue.class))
        .hasMessageContaining("java.util.PriorityQueue");
    assertThat(ClassAllowList.isDenied("java.lang.reflect.Proxy")).isTrue();
    assertThat(ClassAllowList.isDenied("java.lang.invoke.SerializedLambda")).isTrue();
    assertThat(ClassAllowList.isDenied("javax.management.BadAttributeValueExpException")).isTrue();
    assertThat(ClassAllowList.isDenied("java.rmi.server.UnicastRemoteObject")).isTrue();
    assertThat(ClassAllowList.isDenied("java.beans.EventHandler")).isTrue();
    assertThat(ClassAllowList.isDenied("java.net.InetAddress")).isTrue();
    assertThat(ClassAllowList.isDenied("java.net.URI")).isFalse();
    assertThat(ClassAllowList.isDenied("java.lang.RuntimeException")).isFalse();
  }

  @Test
  void truncatedOrTrailingBytesAreCorrupt() throws IOException {
    byte[] bytes = Payloads.serialize(new ArrayList<>(List.of("a", "b")));
    assertThatThrownBy(() -> decode(Arrays.copyOf(bytes, bytes.length - 3), List.class))
        .hasMessageContaining("end in the middle");
    assertThatThrownBy(() -> decode(Arrays.copyOf(bytes, bytes.length + 1), List.class))
        .hasMessageContaining("go on after");
  }

  @Test
  void readingASmallRecordedResultDoesNotAllocateABufferOfItsMaximumLength() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    codec.encode(new Item("sku-1", 2), Item.class, out);
    byte[] bytes = out.toByteArray();
    // by reflection: the tests compile in core's module, which does not read java.management
    Object threads =
        Class.forName("java.lang.management.ManagementFactory")
            .getMethod("getThreadMXBean")
            .invoke(null);
    java.lang.reflect.Method allocated =
        Class.forName("com.sun.management.ThreadMXBean")
            .getMethod("getThreadAllocatedBytes", long.class);
    long thread = Thread.currentThread().getId();
    for (int i = 0; i < 2_000; i++) {
      decode(bytes, Item.class);
    }
    long before = (long) allocated.invoke(threads, thread);
    for (int i = 0; i < 1_000; i++) {
      decode(bytes, Item.class);
    }
    long perDecode = ((long) allocated.invoke(threads, thread) - before) / 1_000;
    // ObjectInputStream itself takes about 4 KiB; reading the input through an 8 KiB chunk would
    // add as much again
    assertThat(perDecode)
        .as("bytes allocated per decode of a %d-byte result", bytes.length)
        .isLessThan(8 * 1024);
  }
}
