package dev.idempotent.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Hardening item 4: the record key of a web request is unambiguous, so no path or key a client
 * sends imitates another caller's part or another field.
 */
class HttpRecordKeyTest {
  @Test
  void theFieldsAreVersionedAndLengthPrefixed() {
    assertThat(HttpRecordKey.of("POST", "/orders", null, "k-1")).isEqualTo("1 POST - 7:/ordersk-1");
    assertThat(HttpRecordKey.of("POST", "/orders", "alice", "k-1"))
        .matches("1 POST c[A-Za-z0-9_-]{22} 7:/ordersk-1");
  }

  @Test
  void aPathEndingInACallersPartIsNotThatCaller() {
    String alice = HttpRecordKey.of("POST", "/c/1", "alice", "k");
    String aliceDigest = alice.split(" ")[2];
    String crafted = HttpRecordKey.of("POST", "/c/1 " + aliceDigest, null, "k");
    String craftedKey = HttpRecordKey.of("POST", "/c/1", null, " " + aliceDigest + " 4:/c/1k");
    assertThat(crafted).isNotEqualTo(alice);
    assertThat(craftedKey).isNotEqualTo(alice);
  }

  @Test
  void splittingTheSameTextBetweenPathAndKeyGivesDifferentRecordKeys() {
    assertThat(HttpRecordKey.of("POST", "/a", null, "/bk"))
        .isNotEqualTo(HttpRecordKey.of("POST", "/a/b", null, "k"));
    assertThat(HttpRecordKey.of("POST", "/a1", null, "2:x"))
        .isNotEqualTo(HttpRecordKey.of("POST", "/a", null, "12:x"));
  }

  @Test
  void distinctRequestsNeverShareARecordKey() {
    Random random = new Random(7);
    List<String> pieces =
        List.of("", " ", "-", ":", "1", "12:", "/", "c", "cA", "POST", "k", "a b");
    Map<String, List<Object>> seen = new HashMap<>();
    for (int i = 0; i < 200_000; i++) {
      String method = random.nextBoolean() ? "POST" : "PATCH";
      String path = "/" + pick(random, pieces) + pick(random, pieces);
      String caller = random.nextInt(3) == 0 ? null : pick(random, pieces) + pick(random, pieces);
      String key = pick(random, pieces) + pick(random, pieces) + "x";
      List<Object> request = java.util.Arrays.asList(method, path, caller, key);
      List<Object> before = seen.putIfAbsent(HttpRecordKey.of(method, path, caller, key), request);
      assertThat(before == null || before.equals(request))
          .as("%s and %s share a record key", before, request)
          .isTrue();
    }
  }

  private static String pick(Random random, List<String> pieces) {
    return pieces.get(random.nextInt(pieces.size()));
  }
}
