package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FingerprintsTest {
  enum Colour {
    RED,
    GREEN,
    BLUE
  }

  record Line(String sku, int qty) {}

  record Order(String id, List<Line> lines, Map<String, Object> meta, Set<Colour> colours) {}

  public static class Bean {
    private final String name;
    public final int count;

    public Bean(String name, int count) {
      this.name = name;
      this.count = count;
    }

    public String getName() {
      return name;
    }
  }

  @Test
  void sameValuesGiveTheSameFingerprintWhateverTheIterationOrder() {
    Map<String, Object> m1 = new HashMap<>();
    Map<String, Object> m2 = new LinkedHashMap<>();
    for (int i = 0; i < 50; i++) {
      m1.put("k" + i, i);
    }
    for (int i = 49; i >= 0; i--) {
      m2.put("k" + i, i);
    }
    Set<Colour> s1 = new HashSet<>(List.of(Colour.BLUE, Colour.RED));
    Set<Colour> s2 = new LinkedHashSet<>(List.of(Colour.RED, Colour.BLUE));
    Order a = new Order("o1", List.of(new Line("x", 1)), m1, s1);
    Order b = new Order("o1", List.of(new Line("x", 1)), m2, s2);
    assertThat(Fingerprints.of(a)).isEqualTo(Fingerprints.of(b)).hasSize(23);
  }

  @Test
  void aFingerprintIsTheVersionThen22Base64urlCharacters() {
    assertThat(Fingerprints.VERSION).isEqualTo('1');
    assertThat(Fingerprints.of("abc"))
        .hasSize(Fingerprints.LENGTH)
        .matches(Fingerprints.VERSION + "[A-Za-z0-9_-]{22}");
    assertThat(Fingerprints.ofArguments(new Object[] {"abc", 1}, new String[] {"a", "b"}))
        .isEqualTo(Fingerprints.of(new Object[] {"abc", 1}))
        .hasSize(Fingerprints.LENGTH)
        .startsWith(String.valueOf(Fingerprints.VERSION));
  }

  @Test
  void onlyFingerprintsOfOneVersionAreCompared() {
    String current = Fingerprints.of("abc");
    assertThat(Fingerprints.sameVersion(current, Fingerprints.of(List.of(1, 2)))).isTrue();
    assertThat(Fingerprints.sameVersion(current, "2" + current.substring(1))).isFalse();
    assertThat(Fingerprints.sameVersion("0" + current.substring(1), current)).isFalse();
    assertThat(Fingerprints.sameVersion(current, "")).isFalse();
    assertThat(Fingerprints.sameVersion("", current)).isFalse();
  }

  @Test
  void differentValuesDiffer() {
    assertThat(Fingerprints.of(new Line("x", 1))).isNotEqualTo(Fingerprints.of(new Line("x", 2)));
    assertThat(Fingerprints.of("1")).isNotEqualTo(Fingerprints.of(1));
    assertThat(Fingerprints.of(1)).isNotEqualTo(Fingerprints.of(1L));
    assertThat(Fingerprints.of(new Object[] {"a", "b"}))
        .isNotEqualTo(Fingerprints.of(new Object[] {"ab"}));
    assertThat(Fingerprints.of(List.of(1, 2))).isNotEqualTo(Fingerprints.of(List.of(2, 1)));
    assertThat(Fingerprints.of(null)).isNotEqualTo(Fingerprints.of("null"));
    assertThat(Fingerprints.of(new Bean("a", 1))).isNotEqualTo(Fingerprints.of(new Bean("a", 2)));
  }

  @Test
  void isAFixedFunctionOfTheValueAcrossRunsAndHosts() {
    // Pinned: the version, then the digest. A change of the digest is a new version of the format
    // (Fingerprints.VERSION): records written before it are replayed without their payload check.
    assertThat(Fingerprints.of(new Object[] {"order-1", 42, Colour.RED, new BigDecimal("9.90")}))
        .isEqualTo(
            Fingerprints.of(new Object[] {"order-1", 42, Colour.RED, new BigDecimal("9.90")}));
    assertThat(Fingerprints.of("abc")).isEqualTo("1KZ8WFdtf_XvY2ReVxhRnoQ");
    // SHA-256 of 's', the length in four bytes and the text: a text longer than the gathered ones
    assertThat(Fingerprints.of("x".repeat(300))).isEqualTo("1IEvZUi2gccX2XuHgUniytw");
    // Arguments of plain values, sets and maps digest as they did before composites were digested
    // separately.
    assertThat(
            Fingerprints.of(
                new Object[] {
                  "order-1",
                  42,
                  7L,
                  Instant.EPOCH,
                  java.util.UUID.fromString("00000000-0000-0000-0000-000000000001"),
                  new BigDecimal("9.90"),
                  null,
                  true
                }))
        .isEqualTo("1TdtDwYF5scd4vnZqKr7dPg");
    assertThat(Fingerprints.of(Set.of("a", "b"))).isEqualTo("1gKWCod2X42gIOsSCCjBqfg");
    assertThat(Fingerprints.of(Map.of("a", 1))).isEqualTo("1IoGJX2_z8tkSncidA3OnCA");
    // The shape the web filter digests (method, path, query, content type, body, form fields),
    // and empty and nested composites of every kind.
    byte[] body = "{\"sku\":\"A-1\",\"qty\":2}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(Fingerprints.of(List.of("POST", "/orders", "", "application/json", body, Map.of())))
        .isEqualTo("1X2NJ1HJXRzaH_u8--kI73g");
    assertThat(
            Fingerprints.of(
                List.of(
                    "POST",
                    "/orders",
                    "a=1",
                    "application/x-www-form-urlencoded",
                    new byte[0],
                    Map.of("qty", new String[] {"1", "2"}))))
        .isEqualTo("14ELES1olO8b-OcA88RC-gw");
    assertThat(
            Fingerprints.of(
                new Object[] {
                  List.of(),
                  new Object[0],
                  new int[0],
                  Set.of(),
                  new java.util.ArrayDeque<>(),
                  Map.of(),
                  List.of(List.of(), Map.of("k", List.of())),
                  new Bean("é€😀", -1),
                  Optional.of(new Line("x", 3))
                }))
        .isEqualTo("1yDdN16mqsvkulAVF9WcE0Q");
  }

  @Test
  void beansJavaValuesAndCyclesAreHandled() {
    assertThat(Fingerprints.of(new Bean("a", 1))).isEqualTo(Fingerprints.of(new Bean("a", 1)));
    assertThat(Fingerprints.of(Instant.EPOCH)).isEqualTo(Fingerprints.of(Instant.ofEpochSecond(0)));
    assertThat(Fingerprints.of(EnumSet.of(Colour.GREEN)))
        .isEqualTo(Fingerprints.of(Set.of(Colour.GREEN)));
    List<Object> cyclic = new java.util.ArrayList<>();
    cyclic.add(cyclic);
    assertThat(Fingerprints.of(cyclic)).isEqualTo(Fingerprints.of(cyclic));
  }
}
