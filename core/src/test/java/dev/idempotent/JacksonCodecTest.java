package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Type;
import java.util.List;
import org.junit.jupiter.api.Test;

class JacksonCodecTest {
  public record Item(String sku, int qty) {}

  static final Type LIST_OF_ITEMS =
      new Object() {
        @SuppressWarnings("unused")
        List<Item> field;
      }.getClass().getDeclaredFields()[0].getGenericType();

  @Test
  void resultsThatAreNotSerializableRoundTripWithTheirGenericType() throws Exception {
    TestStore store = new TestStore();
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).codec(ResultCodec.jackson()).build());
    IdempotencyPolicy p = IdempotencyPolicy.builder("jackson").resultType(LIST_OF_ITEMS).build();
    List<Item> first = idem.execute(p, "k", () -> List.of(new Item("a", 1), new Item("b", 2)));
    List<Item> replay = idem.execute(p, "k", () -> List.of());
    assertThat(replay).isEqualTo(first).first().isInstanceOf(Item.class);
    byte[] stored = store.read(store.onlyKey()).orElseThrow().outcome();
    assertThat(new String(stored, 10, stored.length - 10, java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("[{\"sku\":\"a\",\"qty\":1},{\"sku\":\"b\",\"qty\":2}]");
  }
}
