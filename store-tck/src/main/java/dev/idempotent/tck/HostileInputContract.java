package dev.idempotent.tck;

import static dev.idempotent.tck.ContractFixture.LONG_LEASE;
import static dev.idempotent.tck.ContractFixture.LONG_TTL;
import static dev.idempotent.tck.ContractFixture.assertCompletedBy;
import static dev.idempotent.tck.ContractFixture.owner;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Hostile keys and scopes: unicode and punctuation, 1,000-character keys and keys with lone
 * surrogates or NUL (fitted as the executor fits them) each keep a record of their own, and no
 * split of the same characters into scope and key is confused with another.
 */
interface HostileInputContract extends ContractGroup {
  @Test
  @DisplayName("unicode and punctuation in keys and scopes keep records distinct")
  default void unicodeKeysAndScopesStayDistinct() {
    IdempotencyStore store = fixture().store();
    String scope = fixture().scope();
    List<String> keys =
        List.of(
            "plain",
            "Plain",
            "plain ",
            "emoji 😀🎉",
            "中文键",
            "日本語のキー",
            "with space",
            " leading",
            "{braces}",
            "{plain}",
            "quote\"double",
            "quote'single",
            "new\nline",
            "tab\tkey",
            "back\\slash",
            "per%cent",
            "a:b",
            "a/b",
            "a|b",
            "ünïcödé",
            "ünïcödé".toUpperCase());
    List<String> scopes = List.of(scope, scope + " 😀 {x}", scope + "-中文\n\"'");
    Map<RecordKey, String> owners = new java.util.LinkedHashMap<>();
    for (String s : scopes) {
      for (String k : keys) {
        RecordKey key = RecordKey.of(s, k).fittedTo(store.maxKeyLength());
        String owner = owner();
        ClaimResult result = store.claim(key, owner, "fp-" + owners.size(), LONG_LEASE);
        assertThat(result.isAcquired())
            .as("claim of key %s in scope %s: %s", k, s, result)
            .isTrue();
        owners.put(key, owner);
      }
    }
    // a scope/key split must not be confused with another split of the same characters
    RecordKey left = RecordKey.of(scope + ":a", "b").fittedTo(store.maxKeyLength());
    RecordKey right = RecordKey.of(scope, "a:b").fittedTo(store.maxKeyLength());
    RecordKey leftSlash = RecordKey.of(scope + "/a", "b").fittedTo(store.maxKeyLength());
    for (RecordKey k : List.of(left, leftSlash)) {
      String owner = owner();
      assertThat(store.claim(k, owner, null, LONG_LEASE).isAcquired())
          .as("claim of %s", k)
          .isTrue();
      owners.put(k, owner);
    }
    assertThat(owners.get(right)).isNotNull();

    owners.forEach(
        (key, owner) -> {
          IdempotencyRecord record = fixture().readLive(key);
          assertThat(record.ownerToken()).as("owner of %s", key).isEqualTo(owner);
          assertThat(record.key()).isEqualTo(key);
        });
  }

  @Test
  @DisplayName(
      "1,000-character keys work once fitted, and two differing only in the last character stay"
          + " distinct")
  default void longKeysStayDistinct() {
    IdempotencyStore store = fixture().store();
    String scope = fixture().scope();
    String prefix = "k".repeat(999);
    RecordKey first = RecordKey.of(scope, prefix + "1").fittedTo(store.maxKeyLength());
    RecordKey second = RecordKey.of(scope, prefix + "2").fittedTo(store.maxKeyLength());
    assertThat(first).isNotEqualTo(second);
    String owner1 = owner();
    String owner2 = owner();

    assertThat(store.claim(first, owner1, "fp1", LONG_LEASE).isAcquired())
        .as("claim of the first long key")
        .isTrue();
    assertThat(store.claim(second, owner2, "fp2", LONG_LEASE).isAcquired())
        .as("claim of the second long key")
        .isTrue();
    assertThat(store.complete(first, owner1, new byte[] {1}, LONG_TTL)).isTrue();

    assertThat(fixture().readLive(first).outcome()).isEqualTo(new byte[] {1});
    IdempotencyRecord secondRecord = fixture().readLive(second);
    assertThat(secondRecord.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(secondRecord.ownerToken()).isEqualTo(owner2);
    RecordKey again = RecordKey.of(scope, prefix + "1").fittedTo(store.maxKeyLength());
    assertCompletedBy(
        store.claim(again, owner(), "fp1", LONG_LEASE).existing(), owner1, "the first long key");
  }

  @Test
  @DisplayName(
      "keys and scopes with lone surrogates or NUL stay distinct, and each completes and replays"
          + " its own")
  default void illFormedAndNulKeysStayDistinct() {
    IdempotencyStore store = fixture().store();
    String scope = fixture().scope();
    String longPrefix = "k".repeat(999);
    // a key that is the very text another (long, ill-formed) key is replaced by must not be that
    // key
    String lookalike =
        RecordKey.of(scope, longPrefix + "\uD800").fittedTo(store.maxKeyLength()).key();
    List<String> keys =
        List.of(
            "tx-\uD800",
            "tx-\uDBFF",
            "tx-\uDC00",
            "tx-?",
            "tx-\uD83D\uDE00",
            "tx-\uDE00\uD83D",
            "tx-\u0000",
            "tx-a\u0000b",
            "tx-ab",
            "tx-\u0001",
            "tx-\uFFFF",
            longPrefix + "\uD800",
            longPrefix + "\uDBFF",
            longPrefix + "?",
            lookalike);
    List<String> scopes = List.of(scope, scope + "\uD800", scope + "?", scope + "\u0000");
    Map<RecordKey, String> owners = new java.util.LinkedHashMap<>();
    Map<RecordKey, String> names = new java.util.LinkedHashMap<>();
    for (String s : scopes) {
      for (String k : keys) {
        RecordKey key = RecordKey.of(s, k).fittedTo(store.maxKeyLength());
        String name = "key " + printable(k) + " in scope " + printable(s);
        String owner = owner();
        ClaimResult result = store.claim(key, owner, null, LONG_LEASE);
        assertThat(result.isAcquired())
            .as("claim of %s (another key took its record?): %s", name, result)
            .isTrue();
        owners.put(key, owner);
        names.put(key, name);
      }
    }
    int i = 0;
    for (Map.Entry<RecordKey, String> e : owners.entrySet()) {
      assertThat(store.complete(e.getKey(), e.getValue(), outcomeOf(i++), LONG_TTL))
          .as("complete of %s", names.get(e.getKey()))
          .isTrue();
    }

    i = 0;
    for (String s : scopes) {
      for (String k : keys) {
        RecordKey again = RecordKey.of(s, k).fittedTo(store.maxKeyLength());
        IdempotencyRecord replay = store.claim(again, owner(), null, LONG_LEASE).existing();
        String name = "key " + printable(k) + " in scope " + printable(s);
        assertThat(replay).as("replay of %s", name).isNotNull();
        assertThat(replay.status()).as("replay of %s", name).isEqualTo(RecordStatus.COMPLETED);
        assertCompletedBy(replay, owners.get(again), "replay of " + name);
        assertThat(replay.outcome()).as("outcome replayed for %s", name).isEqualTo(outcomeOf(i++));
      }
    }
  }

  private static byte[] outcomeOf(int index) {
    return ("outcome-" + index).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** A key for a message: control characters and surrogates as escapes, long keys shortened. */
  private static String printable(String text) {
    StringBuilder sb = new StringBuilder();
    for (char c : text.toCharArray()) {
      sb.append(
          c < 0x20 || Character.isSurrogate(c)
              ? String.format("\\u%04X", (int) c)
              : String.valueOf(c));
    }
    return sb.length() > 60
        ? sb.substring(0, 30) + "..." + sb.substring(sb.length() - 20)
        : sb.toString();
  }
}
