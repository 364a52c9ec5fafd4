package dev.idempotent.internal.processor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processor writes the reflection a native image needs for the {@code @Idempotent} methods it
 * sees: what key expressions read, what results are made of, key resolver classes; compared with a
 * golden file.
 */
class NativeImageMetadataTest {
  static final String ORDERS =
      """
      package demo.shop;

      import dev.idempotent.Idempotent;
      import dev.idempotent.KeyResolver;
      import java.util.List;
      import java.util.concurrent.CompletionStage;

      public class Orders {
        public record Customer(String id, String email) {}

        public static final class Request {
          public Customer getCustomer() { return null; }
          public String getOrderId() { return "o"; }
        }

        public record Line(String sku, int quantity, Note note) {}

        public static final class Note {
          public String text;
        }

        public record Receipt(String id, List<Line> lines) implements java.io.Serializable {}

        public static final class ByHeader implements KeyResolver {
          @Override
          public String resolve(dev.idempotent.InvocationContext context) { return "k"; }
        }

        public static final class OutOfStockException extends RuntimeException {
          public OutOfStockException(String message) { super(message); }
        }

        @Idempotent(
            scope = "orders.place",
            key = "#request.customer.id + ':' + #request.orderId",
            recordFailures = OutOfStockException.class)
        public Receipt place(Request request, int[] codes) { return null; }

        @Idempotent(scope = "orders.later", key = "#id")
        public CompletionStage<Line> later(String id) { return null; }

        @Idempotent(scope = "orders.resolved", keyResolver = ByHeader.class)
        public void resolved() {}
      }
      """;

  @TempDir Path out;

  @Test
  void theMetadataOfASourceSetMatchesTheGoldenFile() throws IOException {
    Compilation c =
        Compilation.of(out, new IdempotentProcessor(), Map.of("demo.shop.Orders", ORDERS));
    assertThat(c.success).as(c.toString()).isTrue();

    Path written =
        out.resolve(
            "META-INF/native-image/dev.idempotent/generated/demo.shop/reachability-metadata.json");
    String json = Files.readString(written, StandardCharsets.UTF_8);

    assertThat(json).isEqualTo(golden("orders-reachability-metadata.json"));
    JsonNode root = new ObjectMapper().readTree(json);
    assertThat(root.get("reflection").isArray()).isTrue();
  }

  @Test
  void theDirectoryNameCanBeGivenAndNoMethodsMeanNoFile() throws IOException {
    Compilation named =
        Compilation.of(
            out.resolve("named"),
            new IdempotentProcessor(),
            Map.of("demo.shop.Orders", ORDERS),
            List.of("-A" + IdempotentProcessor.NATIVE_IMAGE_NAME + "=orders-service"));
    assertThat(named.success).as(named.toString()).isTrue();
    assertThat(
            out.resolve(
                "named/META-INF/native-image/dev.idempotent/generated/orders-service/"
                    + "reachability-metadata.json"))
        .exists();

    Compilation none =
        Compilation.of(
            out.resolve("none"),
            new IdempotentProcessor(),
            Map.of("demo.Plain", "package demo; public class Plain {}"));
    assertThat(none.success).isTrue();
    assertThat(out.resolve("none/META-INF/native-image")).doesNotExist();
  }

  private static String golden(String name) throws IOException {
    try (InputStream in =
        NativeImageMetadataTest.class.getResourceAsStream("/native-image/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
