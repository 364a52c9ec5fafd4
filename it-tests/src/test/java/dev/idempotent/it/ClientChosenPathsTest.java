package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.http.ApplicationResponse;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.HttpResult;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.spi.IdempotencyStore;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hardening, "done when": a load of distinct client-chosen paths, each with a key of its own,
 * through the HTTP protocol on a real store leaves the scopes in use, the JDBC store's scope
 * registry and the heap flat; what grows is records, which expire. CI runs 5,000 paths per store;
 * {@code -Dsoak=true} a million. The heap is reported (used after a full collection, at a tenth of
 * the load and at its end), the scope counts asserted.
 */
class ClientChosenPathsTest {
  static final int PATHS = Boolean.getBoolean("soak") ? 1_000_000 : 5_000;

  @ParameterizedTest
  @EnumSource(
      value = Backend.class,
      names = {"REDIS", "POSTGRES"})
  void distinctPathsLeaveScopesRegistryAndHeapFlat(Backend backend) throws Exception {
    BackendSpec spec = new BackendSpec(backend.spec());
    Backend.prepare(spec);
    String rule = "paths-" + UUID.randomUUID().toString().substring(0, 8);
    int scopesBefore = Idempotency.scopesInUse().size();
    long registryBefore = registryRows(spec);
    try (IdempotencyStore store =
        spec.openStore("client-chosen-paths", Duration.ofSeconds(5), false)) {
      HttpIdempotency protocol =
          HttpIdempotency.builder()
              .idempotency(
                  Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build()))
              .rule(IdempotencyRule.builder(rule).paths("/c/*").ttl(Duration.ofSeconds(30)).build())
              .build();
      long heapAtTenth = 0;
      for (int i = 0; i < PATHS; i++) {
        String key = "k-" + i;
        HttpIdempotency.Admission admission =
            protocol.admit(
                "POST",
                "/c/" + i,
                name -> name.equals(HttpIdempotency.KEY_HEADER) ? List.of(key) : List.of(),
                null);
        HttpResult result =
            protocol
                .execute(
                    admission,
                    null,
                    "text/plain",
                    new byte[] {1},
                    () -> null,
                    () ->
                        CompletableFuture.completedFuture(
                            ApplicationResponse.of(
                                404,
                                List.of(Map.entry("Content-Type", "text/plain")),
                                "no such thing".getBytes(StandardCharsets.UTF_8))))
                .toCompletableFuture()
                .join();
        assertThat(result.kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);
        if (i == PATHS / 10) {
          heapAtTenth = usedHeapAfterGc();
        }
      }
      long heapAtEnd = usedHeapAfterGc();
      System.out.printf(
          "%s: %,d distinct paths; scopes in use %d -> %d; scope registry rows %d -> %d;"
              + " heap used after GC %,d KiB at a tenth, %,d KiB at the end%n",
          backend,
          PATHS,
          scopesBefore,
          Idempotency.scopesInUse().size(),
          registryBefore,
          registryRows(spec),
          heapAtTenth / 1024,
          heapAtEnd / 1024);
      assertThat(Idempotency.scopesInUse().size())
          .as("one scope for the rule, whatever the paths")
          .isEqualTo(scopesBefore + 1);
      if (spec.isJdbc()) {
        assertThat(registryRows(spec))
            .as("one registry row for the rule's scope")
            .isLessThanOrEqualTo(registryBefore + 1);
      }
    }
  }

  /** The rows of the JDBC store's scope registry ({@code -1} for Redis, which keeps none). */
  private static long registryRows(BackendSpec spec) throws Exception {
    if (!spec.isJdbc()) {
      return -1;
    }
    try (Connection c = DriverManager.getConnection(spec.spec());
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT COUNT(*) FROM " + BackendSpec.RECORD_TABLE + "_scope")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static long usedHeapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
