package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.idempotent.IdempotencyConfigurationException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.Date;
import java.util.GregorianCalendar;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.TimeZone;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Digests by content only: identical across JVMs, zones and sharing; refused when there is no
 * content.
 */
class FingerprintsContentTest {
  /** The digests of the zone-sensitive values, printed by a separate JVM. */
  public static final class PrintDigests {
    public static void main(String[] args) {
      System.out.println(zoneSensitiveDigests());
    }
  }

  static String zoneSensitiveDigests() {
    Calendar calendar = new GregorianCalendar(TimeZone.getTimeZone("UTC"), Locale.ROOT);
    calendar.setTimeInMillis(0);
    return Fingerprints.of(new Date(0))
        + " "
        + Fingerprints.of(new Timestamp(0))
        + " "
        + Fingerprints.of(new java.sql.Date(0))
        + " "
        + Fingerprints.of(calendar)
        + " "
        + Fingerprints.of(LocalDateTime.of(2024, 3, 31, 2, 30))
        + " "
        + Fingerprints.of(ZonedDateTime.of(2024, 3, 31, 2, 30, 0, 0, ZoneId.of("UTC")))
        + " "
        + Fingerprints.of(1.5)
        + " "
        + Fingerprints.of(new java.math.BigDecimal("1234.5"));
  }

  @Test
  void datesDigestTheSameInJvmsWithDifferentTimeZonesAndLocales() throws Exception {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String classPath = System.getProperty("java.class.path");
    List<String> outputs = new ArrayList<>();
    String[][] settings = {
      {"UTC", "en-US"}, {"Europe/Paris", "fr-FR"}, {"America/New_York", "tr-TR"}
    };
    for (String[] setting : settings) {
      Locale locale = Locale.forLanguageTag(setting[1]);
      Process p =
          new ProcessBuilder(
                  java,
                  "-cp",
                  classPath,
                  "-Duser.timezone=" + setting[0],
                  "-Duser.language=" + locale.getLanguage(),
                  "-Duser.country=" + locale.getCountry(),
                  PrintDigests.class.getName())
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      assertThat(p.waitFor()).as(out).isZero();
      outputs.add(out);
    }
    assertThat(outputs).hasSize(3).allSatisfy(o -> assertThat(o).isEqualTo(outputs.get(0)));
    assertThat(outputs.get(0)).isEqualTo(zoneSensitiveDigests());
    // and distinct values stay distinct
    assertThat(Fingerprints.of(new Date(0))).isNotEqualTo(Fingerprints.of(new Date(1)));
    assertThat(Fingerprints.of(new Timestamp(0)))
        .isNotEqualTo(
            Fingerprints.of(
                new Timestamp(0) {
                  {
                    setNanos(1);
                  }
                }));
  }

  @Test
  void byteBuffersDigestByTheirRemainingBytesWithoutMovingThem() {
    ByteBuffer a = ByteBuffer.wrap("message-1".getBytes(StandardCharsets.UTF_8));
    ByteBuffer b = ByteBuffer.wrap("message-2".getBytes(StandardCharsets.UTF_8));
    ByteBuffer c =
        ByteBuffer.allocateDirect(9).put("message-3".getBytes(StandardCharsets.UTF_8)).flip();
    assertThat(List.of(Fingerprints.of(a), Fingerprints.of(b), Fingerprints.of(c)))
        .doesNotHaveDuplicates();
    assertThat(a.position()).isZero();
    assertThat(c.position()).isZero();
    assertThat(c.remaining()).isEqualTo(9);

    ByteBuffer direct =
        ByteBuffer.allocateDirect(9).put("message-1".getBytes(StandardCharsets.UTF_8)).flip();
    ByteBuffer sliced = ByteBuffer.wrap("xxmessage-1yy".getBytes(StandardCharsets.UTF_8), 2, 9);
    assertThat(Fingerprints.of(direct))
        .isEqualTo(Fingerprints.of(a))
        .isEqualTo(Fingerprints.of(sliced));
    assertThat(sliced.position()).isEqualTo(2);
  }

  record Pair(Object left, Object right) {}

  record Money(String currency, long cents) {}

  @Test
  void aSharedObjectDigestsLikeAnEqualCopy() {
    Money fee = new Money("EUR", 0);
    assertThat(Fingerprints.of(new Pair(fee, fee)))
        .isEqualTo(Fingerprints.of(new Pair(fee, new Money("EUR", 0))));
    List<Money> list = List.of(fee);
    assertThat(Fingerprints.of(new Object[] {list, list}))
        .isEqualTo(Fingerprints.of(new Object[] {List.of(fee), List.of(new Money("EUR", 0))}));
    assertThat(Fingerprints.of(new Pair(fee, fee)))
        .isNotEqualTo(Fingerprints.of(new Pair(fee, new Money("EUR", 1))));
  }

  /** Two fields that point to the same child: without memoisation the walk doubles per level. */
  static final class Node {
    private final Node left;
    private final Node right;
    private final int level;

    Node(Node child, int level) {
      this.left = child;
      this.right = child;
      this.level = level;
    }

    public Node getLeft() {
      return left;
    }

    public Node getRight() {
      return right;
    }
  }

  /** A many-to-many graph: every member links to every other one. */
  static final class Member {
    private final String name;
    private final List<Member> peers = new ArrayList<>();

    Member(String name) {
      this.name = name;
    }

    public String getName() {
      return name;
    }

    public List<Member> getPeers() {
      return peers;
    }
  }

  @Test
  void sharedAndManyToManyGraphsDigestInBoundedTime() {
    Node chain = null;
    for (int i = 0; i < 24; i++) {
      chain = new Node(chain, i);
    }
    Node top = chain;
    String first = assertTimeoutPreemptively(Duration.ofSeconds(2), () -> Fingerprints.of(top));
    assertThat(Fingerprints.of(top)).isEqualTo(first);

    List<Member> members = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      members.add(new Member("m" + i));
    }
    for (Member m : members) {
      for (Member other : members) {
        if (m != other) {
          m.getPeers().add(other);
        }
      }
    }
    String graph = assertTimeoutPreemptively(Duration.ofSeconds(2), () -> Fingerprints.of(members));
    assertThat(Fingerprints.of(members)).isEqualTo(graph);
  }

  @Test
  void tooLargeOrTooDeepGraphsAreAClearConfigurationError() {
    List<Object> nested = new ArrayList<>();
    Object deep = nested;
    for (int i = 0; i < 300; i++) {
      deep = List.of(deep);
    }
    Object tooDeep = deep;
    assertThatThrownBy(() -> Fingerprints.of(tooDeep))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("nested more than 256 levels deep");
    List<String> many = new ArrayList<>();
    for (int i = 0; i <= Fingerprints.MAX_VALUES; i++) {
      many.add("x");
    }
    assertThatThrownBy(() -> Fingerprints.of(many))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("too large to digest");
  }

  /** A getter that reads the argument's stream: the digest must not call it. */
  public static final class Upload {
    private final String name;
    private final Queue<String> parts;

    Upload(String name, Queue<String> parts) {
      this.name = name;
      this.parts = parts;
    }

    public String getName() {
      return name;
    }

    public String getNextPart() {
      return parts.poll();
    }
  }

  public static final class StreamedUpload {
    private final InputStream body;

    StreamedUpload(InputStream body) {
      this.body = body;
    }

    public String getText() throws IOException {
      return new String(body.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void gettersAreNeverCalledAndStreamsAreRefusedUntouched() {
    Upload upload = new Upload("u", new ArrayDeque<>(List.of("p1", "p2")));
    String digest = Fingerprints.of(upload);
    assertThat(upload.parts).containsExactly("p1", "p2");
    assertThat(Fingerprints.of(new Upload("u", new ArrayDeque<>(List.of("p1", "p2")))))
        .isEqualTo(digest);
    assertThat(Fingerprints.of(new Upload("u", new ArrayDeque<>(List.of("p1")))))
        .isNotEqualTo(digest);

    ByteArrayInputStream body = new ByteArrayInputStream("hello".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> Fingerprints.of(new StreamedUpload(body)))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("value.body")
        .hasMessageContaining(ByteArrayInputStream.class.getName());
    assertThat(body.available()).isEqualTo(5);
  }

  /** Extends a JDK class without instance fields: its own fields are its content. */
  static final class Amount extends Number {
    private final long cents;

    Amount(long cents) {
      this.cents = cents;
    }

    @Override
    public int intValue() {
      return (int) cents;
    }

    @Override
    public long longValue() {
      return cents;
    }

    @Override
    public float floatValue() {
      return cents;
    }

    @Override
    public double doubleValue() {
      return cents;
    }
  }

  @Test
  void applicationClassesExtendingJdkClassesWithoutFieldsDigestByTheirOwnFields() {
    assertThat(Fingerprints.of(new Amount(5)))
        .isEqualTo(Fingerprints.of(new Amount(5)))
        .isNotEqualTo(Fingerprints.of(new Amount(6)));
  }

  static final class Empty {}

  static final class Entity$$EnhancerByCGLIB {
    private final String id = "1";
  }

  public interface Named {
    String name();
  }

  record Holder(Object value) {}

  @Test
  void valuesWithoutContentAreRefusedNamingTheType() {
    Supplier<String> lambda = () -> "x";
    assertRefused(lambda, "lambda or hidden class");
    assertRefused(new Holder(lambda), "value.value");
    Named proxy =
        (Named)
            Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Named.class}, (p, m, a) -> "n");
    assertRefused(proxy, "dynamic proxy");
    assertRefused(new Entity$$EnhancerByCGLIB(), "generated proxy");
    assertRefused(new ReentrantLock(), ReentrantLock.class.getName());
    assertRefused(Thread.currentThread(), "java.lang.Thread");
    assertRefused(List.of(1).iterator(), "java.util.Iterator");
    assertRefused(Stream.of(1), "java.util.stream.BaseStream");
    assertRefused(getClass().getClassLoader(), "java.lang.ClassLoader");
    assertRefused(new Object(), "java.lang.Object has no content");
    assertRefused(new Empty(), Empty.class.getName() + " has no fields and no toString");
    assertRefused(new java.text.SimpleDateFormat("yyyy"), "JDK type with no content-based form");
  }

  private static void assertRefused(Object value, String message) {
    assertThatThrownBy(() -> Fingerprints.of(value))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .isInstanceOf(Fingerprints.UndigestableValueException.class)
        .hasMessageContaining(message)
        .hasMessageNotContaining("@");
  }
}
