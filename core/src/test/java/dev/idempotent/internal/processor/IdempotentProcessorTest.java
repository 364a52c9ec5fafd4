package dev.idempotent.internal.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.internal.WovenMethods;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processor under javac: key expressions checked at compile time, methods recorded for the
 * weaving report.
 */
class IdempotentProcessorTest {
  /**
   * Declared types the expressions below read; {@code Request} is concrete, {@code Lookup} an
   * interface.
   */
  private static final String TYPES =
      """
      package demo;

      public final class Types {
        public record Customer(String id, String email) {}

        public static final class Request {
          public final int quantity = 1;
          public String getOrderId() { return "o"; }
          public boolean isUrgent() { return false; }
          public Customer getCustomer() { return null; }
          public java.util.List<Customer> getItems() { return null; }
          public String describe() { return ""; }
        }

        public interface Lookup {
          String getOrderId();
        }

        public abstract static class Base {
          public abstract String getOrderId();
        }
      }
      """;

  @TempDir Path out;

  private Compilation compile(String method) throws IOException {
    String orders =
        """
        package demo;

        import dev.idempotent.Idempotent;
        import demo.Types.*;

        public class Orders {
        %s
        }
        """
            .formatted(method);
    return Compilation.of(
        out, new IdempotentProcessor(), Map.of("demo.Types", TYPES, "demo.Orders", orders));
  }

  @Test
  void aDeferredResultTheLibraryCannotRecordFailsTheBuildNamingTheType() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "#id")
              public java.util.stream.Stream<String> lines(String id) { return null; }

              @Idempotent(key = "#id")
              public java.util.concurrent.FutureTask<String> task(String id) { return null; }

              @Idempotent(key = "#id")
              public java.util.concurrent.CompletableFuture<String> stage(String id) { return null; }

              @Idempotent(key = "#id")
              public java.util.List<String> list(String id) { return null; }
            """);
    assertThat(c.errors()).as(c.toString()).hasSize(2);
    assertThat(message(c.errors().get(0)))
        .contains("demo.Orders.lines")
        .contains("java.util.stream.Stream")
        .contains("return a List");
    assertThat(message(c.errors().get(1)))
        .contains("demo.Orders.task")
        .contains("java.util.concurrent.FutureTask")
        .contains("(java.util.concurrent.Future)")
        .contains("return a CompletionStage");
  }

  @Test
  void withRequireScopeAMethodWithoutAScopeFailsTheBuildNamingIt() throws IOException {
    String methods =
        """
          @Idempotent(key = "#id")
          public String submit(String id) { return id; }

          @Idempotent(scope = "orders.cancel", key = "#id")
          public String cancel(String id) { return id; }

          @Idempotent(scope = " ", key = "#id")
          public String refund(String id) { return id; }
        """;
    String orders =
        """
        package demo;

        import dev.idempotent.Idempotent;

        public class Orders {
        %s
        }
        """
            .formatted(methods);
    Compilation strict =
        Compilation.of(
            out.resolve("strict"),
            new IdempotentProcessor(),
            Map.of("demo.Orders", orders),
            List.of("-A" + IdempotentProcessor.REQUIRE_SCOPE + "=true"));
    assertThat(strict.errors()).as(strict.toString()).hasSize(2);
    assertThat(message(strict.errors().get(0)))
        .contains("demo.Orders.submit has no scope")
        .contains("@Idempotent(scope = \"orders.submit\"");
    assertThat(message(strict.errors().get(1))).contains("demo.Orders.refund has no scope");

    Compilation lenient =
        Compilation.of(
            out.resolve("lenient"), new IdempotentProcessor(), Map.of("demo.Orders", orders));
    assertThat(lenient.errors()).as(lenient.toString()).isEmpty();
  }

  /** The line of the annotation in the Orders source above: its first line of {@code method}. */
  private static final long ANNOTATION_LINE = 7;

  private static String message(Diagnostic<? extends JavaFileObject> d) {
    return d.getMessage(Locale.ROOT);
  }

  @Test
  void aTypoInAParameterNameIsAnErrorOnTheAnnotationWithTheColumn() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "#requst.orderId")
              public String submit(Request request) { return "r"; }
            """);

    assertThat(c.success).as(c.toString()).isFalse();
    assertThat(c.errors()).as(c.toString()).hasSize(1);
    Diagnostic<? extends JavaFileObject> error = c.errors().get(0);
    assertThat(error.getLineNumber()).isEqualTo(ANNOTATION_LINE);
    assertThat(error.getColumnNumber()).isEqualTo(21); // the string literal
    assertThat(message(error)).contains("unknown parameter '#requst'", "column 1", "#request");
  }

  @Test
  void aTypoInAPropertyOfAConcreteDeclaredTypeIsAnError() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "'order:' + #request.ordrId")
              public String submit(Request request) { return "r"; }
            """);

    assertThat(c.success).as(c.toString()).isFalse();
    assertThat(c.errors()).as(c.toString()).hasSize(1);
    Diagnostic<? extends JavaFileObject> error = c.errors().get(0);
    assertThat(error.getLineNumber()).isEqualTo(ANNOTATION_LINE);
    assertThat(message(error))
        .contains("'.ordrId' is not a property of demo.Types.Request", "column 21");
  }

  @Test
  void aTypoDeeperInTheChainIsAnErrorOnTheTypeTheGetterReturns() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "#request.customer?.emial")
              public String submit(Request request) { return "r"; }
            """);

    assertThat(c.errors()).as(c.toString()).hasSize(1);
    assertThat(message(c.errors().get(0)))
        .contains("'.emial' is not a property of demo.Types.Customer");
  }

  @Test
  void aCallOfANonGetterOnTheApplicationsOwnClassIsAnError() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "#request.describe()")
              public String submit(Request request) { return "r"; }
            """);

    assertThat(c.errors()).as(c.toString()).hasSize(1);
    assertThat(message(c.errors().get(0)))
        .contains("describe() is neither a getter nor a record accessor");
  }

  @Test
  void aPropertyMissingOnAnInterfaceOrAbstractDeclaredTypeIsOnlyAWarning() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "#lookup.ordrId + #base.ordrId + #any.whatever")
              public String submit(Lookup lookup, Base base, Object any) { return "r"; }
            """);

    assertThat(c.success).as(c.toString()).isTrue();
    assertThat(c.errors()).isEmpty();
    assertThat(c.warnings()).as(c.toString()).hasSize(3);
    assertThat(message(c.warnings().get(0)))
        .contains(
            "'.ordrId' is not a property of demo.Types.Lookup",
            "checked on the runtime class at the first call");
  }

  @Test
  void aGrammarErrorIsAnErrorWithItsColumn() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "#request.orderId +")
              public String submit(Request request) { return "r"; }
            """);

    assertThat(c.success).as(c.toString()).isFalse();
    assertThat(c.errors()).as(c.toString()).hasSize(1);
    assertThat(c.errors().get(0).getLineNumber()).isEqualTo(ANNOTATION_LINE);
    assertThat(message(c.errors().get(0))).contains("at column 19");
  }

  @Test
  void aBadPayloadExpressionIsAnErrorToo() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "#request.orderId", payload = "#p1")
              public String submit(Request request) { return "r"; }
            """);

    assertThat(c.errors()).as(c.toString()).hasSize(1);
    assertThat(message(c.errors().get(0))).contains("payload", "'#p1' is out of range");
  }

  @Test
  void aRecordResultIsAWarningNamingBothFixes() throws IOException {
    Compilation c =
        compile(
            """
              public record Receipt(String id) {}

              @Idempotent(key = "#id")
              public Receipt submit(String id) { return new Receipt(id); }

              @Idempotent(key = "#id")
              public java.util.concurrent.CompletionStage<java.util.List<Customer>> later(String id) {
                return null;
              }

              @Idempotent(key = "#id")
              public String fine(String id) { return id; }

              @Idempotent(key = "#id")
              public java.util.List<String> alsoFine(String id) { return null; }
            """);

    assertThat(c.success).as(c.toString()).isTrue();
    assertThat(c.warnings()).as(c.toString()).hasSize(2);
    assertThat(message(c.warnings().get(0)))
        .contains(
            "demo.Orders.submit",
            "demo.Orders.Receipt",
            "cannot record",
            "Implement java.io.Serializable",
            "idempotent.codec=jackson",
            "@SuppressWarnings(\"idempotent.codec\")");
    assertThat(message(c.warnings().get(1))).contains("demo.Orders.later", "demo.Types.Customer");
  }

  @Test
  void theCodecOptionOrASuppressionSilencesTheSerializableCheck() throws IOException {
    String method =
        """
          public record Receipt(String id) {}

          @Idempotent(key = "#id")
          public Receipt submit(String id) { return new Receipt(id); }
        """;
    String orders =
        """
        package demo;

        import dev.idempotent.Idempotent;

        public class Orders {
        %s
        }
        """;
    Compilation withOption =
        Compilation.of(
            out.resolve("option"),
            new IdempotentProcessor(),
            Map.of("demo.Orders", orders.formatted(method)),
            List.of("-Aidempotent.codec=jackson"));
    assertThat(withOption.diagnostics).as(withOption.toString()).isEmpty();

    Compilation suppressed =
        Compilation.of(
            out.resolve("suppressed"),
            new IdempotentProcessor(),
            Map.of(
                "demo.Orders",
                orders.formatted(
                    method.replace(
                        "@Idempotent", "@SuppressWarnings(\"idempotent.codec\") @Idempotent"))));
    assertThat(suppressed.diagnostics).as(suppressed.toString()).isEmpty();
  }

  @Test
  void correctExpressionsCompileWithoutDiagnostics() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "'o:' + #request.orderId + #request.urgent + #request.quantity + #p0.customer?.id"
                  + " + #request.customer.email.length() + #request.items[0].email + #request.items.size()"
                  + " + #ids.length + #args[1][0] + #lookup.orderId.toUpperCase() + #n + (#request).orderId"
                  + " + \\"a.b #x\\"", payload = "#request.customer")
              public String submit(Request request, String[] ids, Lookup lookup, int n) { return "r"; }
            """);

    assertThat(c.success).as(c.toString()).isTrue();
    assertThat(c.diagnostics).as(c.toString()).isEmpty();
  }

  @Test
  void anAnnotationOnAnInterfaceMethodIsAnErrorBecauseItIsNeverWoven() throws IOException {
    String api =
        """
        package demo;

        public interface OrderApi {
          @dev.idempotent.Idempotent(key = "#id")
          String submit(String id);
        }
        """;
    Compilation c = Compilation.of(out, new IdempotentProcessor(), Map.of("demo.OrderApi", api));

    assertThat(c.success).as(c.toString()).isFalse();
    assertThat(c.errors()).hasSize(1);
    assertThat(c.errors().get(0).getLineNumber()).isEqualTo(4);
    assertThat(message(c.errors().get(0)))
        .contains(
            "abstract method demo.OrderApi.submit is never woven",
            "put @Idempotent on the method that implements it");
  }

  @Test
  void suppressWarningsIdempotentTurnsTheExpressionChecksOff() throws IOException {
    Compilation c =
        compile(
            """
              @SuppressWarnings("idempotent")
              @Idempotent(key = "#requst.orderId")
              public String submit(Request request) { return "r"; }
            """);

    assertThat(c.success).as(c.toString()).isTrue();
    assertThat(c.diagnostics).as(c.toString()).isEmpty();
  }

  @Test
  void everyAnnotatedMethodIsRecordedInTheClassOutput() throws IOException {
    Compilation c =
        compile(
            """
              @Idempotent(key = "#request.orderId")
              public String submit(Request request) { return "r"; }

              @Idempotent
              private static int count(java.util.List<String> names, long[] ids) { return 0; }

              static final class Inner {
                @Idempotent
                void run() {}
              }
            """);

    assertThat(c.success).as(c.toString()).isTrue();
    List<String> lines =
        Files.readAllLines(out.resolve(WovenMethods.RESOURCE), StandardCharsets.UTF_8);
    assertThat(lines)
        .containsExactly(
            "demo.Orders\tcount\t(java.util.List, long[])",
            "demo.Orders\tsubmit\t(demo.Types.Request)",
            "demo.Orders$Inner\trun\t()");
  }
}
