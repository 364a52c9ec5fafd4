package dev.idempotent.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Idempotency-Key header syntax, and the servlet URL patterns of the filter's path settings.
 */
class KeyHeaderTest {
  @Test
  void bareAndQuotedStringsWithEscapes() {
    assertThat(KeyHeader.parse(List.of("abc"))).isEqualTo("abc");
    assertThat(KeyHeader.parse(List.of(" \"abc\" "))).isEqualTo("abc");
    assertThat(KeyHeader.parse(List.of("\"a\\\"b\\\\c\""))).isEqualTo("a\"b\\c");
    assertThat(KeyHeader.parse(List.of("8e0f-4c1a"))).isEqualTo("8e0f-4c1a");
  }

  @Test
  void refusals() {
    assertThatThrownBy(() -> KeyHeader.parse(List.of()))
        .hasMessageContaining("0 Idempotency-Key headers");
    assertThatThrownBy(() -> KeyHeader.parse(List.of("a", "b")))
        .hasMessageContaining("2 Idempotency-Key headers");
    assertThatThrownBy(() -> KeyHeader.parse(List.of(""))).hasMessageContaining("empty");
    assertThatThrownBy(() -> KeyHeader.parse(List.of("\"  \""))).hasMessageContaining("empty");
    assertThatThrownBy(() -> KeyHeader.parse(List.of("a\u0001b")))
        .hasMessageContaining("printable ASCII");
    assertThatThrownBy(() -> KeyHeader.parse(List.of("\"a\\nb\""))).hasMessageContaining("escape");
    assertThatThrownBy(() -> KeyHeader.parse(List.of("\"a\" x")))
        .hasMessageContaining("after its closing quote");
    assertThatThrownBy(() -> KeyHeader.parse(List.of("x".repeat(256))))
        .hasMessageContaining("256 characters");
    assertThat(KeyHeader.parse(List.of("x".repeat(255)))).hasSize(255);
  }

  @Test
  void pathPatterns() {
    PathPatterns p = PathPatterns.of(List.of("/api/*", "/orders", "*.do"), "paths");
    assertThat(p.matches("/api")).isTrue();
    assertThat(p.matches("/api/orders/1")).isTrue();
    assertThat(p.matches("/apis")).isFalse();
    assertThat(p.matches("/orders")).isTrue();
    assertThat(p.matches("/orders/1")).isFalse();
    assertThat(p.matches("/x/submit.do")).isTrue();
    assertThat(p.matches("/api/")).isTrue();
    assertThat(p.matches("/x/submit.dox")).isFalse();
    assertThat(p.matches("/x.do/submit")).isFalse();
    assertThat(p.matches("/ordersx")).isFalse();
    assertThat(PathPatterns.of(List.of("/*"), "paths").matches("/anything")).isTrue();
    assertThat(PathPatterns.of(List.of("/"), "paths").matches("/anything")).isTrue();
    assertThat(PathPatterns.of(List.of(), "paths").matches("/")).isFalse();
    assertThatThrownBy(() -> PathPatterns.of(List.of("/a/*/b"), "paths"))
        .hasMessageContaining("'/a/*/b'");
  }
}
