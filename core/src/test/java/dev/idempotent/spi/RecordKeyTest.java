package dev.idempotent.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What {@link RecordKey#fittedTo} hands to a store: storable, never merged, and unchanged for
 * ordinary keys.
 */
class RecordKeyTest {
  private static final int MAX = 255;

  @Test
  void wellFormedKeysWithoutNulThatFitAreKeptAsTheyAre() {
    for (String key :
        List.of(
            "tx-?",
            "tx-😀",
            "中文键",
            "sha256-x",
            "sha256",
            "tab\tkey",
            "\u0001",
            "\uFFFF",
            "x".repeat(MAX))) {
      RecordKey given = RecordKey.of("scope 😀", key);
      assertThat(given.fittedTo(MAX)).as("fitted %s", key).isSameAs(given);
    }
  }

  @Test
  void longWellFormedKeysAreDigestedAsBefore() {
    RecordKey fitted = RecordKey.of("s", "k".repeat(300)).fittedTo(MAX);

    assertThat(fitted.key()).isEqualTo("sha256:F7FtjvSUBg_vo2pqQVZ7jDLSE6F-ArfuroYVjMRJVGE");
    assertThat(fitted.scope()).isEqualTo("s");
  }

  @Test
  void loneSurrogatesAndNulAreDigestedOverTheirCodeUnits() {
    RecordKey fitted = RecordKey.of("s", "tx-\uD800").fittedTo(MAX);

    assertThat(fitted.key())
        .isEqualTo("sha256~I5TkCkGzVw7PHMgf-H3TIfoqsaec8iE6SuLg0RyASKY")
        .hasSize(RecordKey.DIGEST_LENGTH);
    assertThat(RecordKey.of("s", "tx-\u0000").fittedTo(MAX).key())
        .startsWith("sha256~")
        .hasSize(RecordKey.DIGEST_LENGTH);
    assertThat(RecordKey.of("s\uDC00", "k").fittedTo(MAX).scope()).startsWith("sha256~");
  }

  @Test
  void distinctKeysStayDistinctAndStorable() {
    String longPrefix = "k".repeat(999);
    List<String> keys =
        List.of(
            "tx-\uD800",
            "tx-\uDBFF",
            "tx-\uDC00",
            "tx-?",
            "tx-??",
            "tx-\uFFFD",
            "tx-😀",
            "tx-\uDE00\uD83D",
            "tx-\uD83D",
            "tx-\uD83D?",
            "tx-",
            "tx-\u0000",
            "tx-\u0000\u0000",
            "tx-a\u0000b",
            "tx-ab",
            "tx-a b",
            "\u0000",
            longPrefix + "\uD800",
            longPrefix + "\uDBFF",
            longPrefix + "?",
            longPrefix + "\u0000",
            RecordKey.of("s", "tx-\uD800").fittedTo(MAX).key(),
            "sha256~",
            "sha256~" + "k".repeat(300));
    Set<RecordKey> fitted = new HashSet<>();
    for (String key : keys) {
      RecordKey f = RecordKey.of("s", key).fittedTo(MAX);
      assertThat(fitted.add(f))
          .as("key %s fitted to %s, like another key", escape(key), f.key())
          .isTrue();
      assertStorable(f.key());
      assertThat(f.key().length()).isLessThanOrEqualTo(MAX);
    }
    assertThat(fitted).hasSize(keys.size());
  }

  @Test
  void aKeyThatLooksLikeADigestOfAnUnstorableKeyIsNotThatKey() {
    RecordKey unstorable = RecordKey.of("s", "tx-\uD800").fittedTo(MAX);
    RecordKey lookalike = RecordKey.of("s", unstorable.key()).fittedTo(MAX);

    assertThat(lookalike).isNotEqualTo(unstorable);
    assertThat(lookalike.key()).startsWith("sha256~").hasSize(RecordKey.DIGEST_LENGTH);
  }

  /**
   * Hardening item 3: a key over the store's limit becomes {@code sha256:<digest>}; a short key
   * that is literally that text must not share its record.
   */
  @Test
  void aShortKeyThatIsTheDigestTextOfALongKeyIsNotThatKey() {
    RecordKey longKey = RecordKey.of("s", "k".repeat(300)).fittedTo(MAX);
    RecordKey lookalike = RecordKey.of("s", longKey.key()).fittedTo(MAX);

    assertThat(longKey.key()).startsWith("sha256:");
    assertThat(lookalike).isNotEqualTo(longKey);
    assertThat(lookalike.key()).startsWith("sha256~").hasSize(RecordKey.DIGEST_LENGTH);
    RecordKey scopeLookalike =
        RecordKey.of(RecordKey.of("x".repeat(300), "k").fittedTo(MAX).scope(), "k").fittedTo(MAX);
    assertThat(scopeLookalike.scope()).startsWith("sha256~");
    assertThat(RecordKey.of("s", "sha256:abc").fittedTo(MAX).key()).startsWith("sha256~");
  }

  @Test
  void theScopeIdIsTheFirstEightBytesOfTheScopesDigest() {
    // echo -n orders.submit | sha256sum: 680e41f400bb19c4...
    assertThat(RecordKey.of("orders.submit", "k").scopeId())
        .isEqualTo(0x680e41f400bb19c4L)
        .isEqualTo(RecordKey.scopeIdOf("orders.submit"))
        .isNotEqualTo(RecordKey.scopeIdOf("orders.submit "));
  }

  @Test
  void fittingAFittedKeyAgainChangesNothingOrFitsItFurther() {
    for (String key :
        List.of("tx-\uD800", "sha256~x", "sha256:y", "k".repeat(300), "k".repeat(200), "plain")) {
      RecordKey once = RecordKey.of("s\u0000", key).fittedTo(MAX);
      assertThat(once.fittedTo(MAX)).as("%s fitted twice", escape(key)).isEqualTo(once);
      assertThat(once.fittedTo(64))
          .as("%s fitted to 255, then 64", escape(key))
          .isEqualTo(RecordKey.of("s\u0000", key).fittedTo(64));
    }
  }

  private static void assertStorable(String part) {
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      assertThat(c).as("character %s of %s", i, part).isNotEqualTo('\u0000');
      if (Character.isHighSurrogate(c)) {
        assertThat(i + 1 < part.length() && Character.isLowSurrogate(part.charAt(i + 1))).isTrue();
        i++;
      } else {
        assertThat(Character.isLowSurrogate(c)).as("lone low surrogate in %s", part).isFalse();
      }
    }
  }

  private static String escape(String key) {
    StringBuilder sb = new StringBuilder();
    for (char c : key.toCharArray()) {
      sb.append(
          c < 0x20 || Character.isSurrogate(c)
              ? String.format("\\u%04X", (int) c)
              : String.valueOf(c));
    }
    return sb.length() > 40 ? sb.substring(0, 40) + "..." : sb.toString();
  }
}
