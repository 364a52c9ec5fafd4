package dev.idempotent.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A filter declared as in {@code web.xml}: settings from init-parameters and {@code
 * idempotent.web.*} properties.
 */
class InitParametersTest {
  @AfterEach
  void tearDown() {
    System.clearProperty("idempotent.web.rules");
    System.clearProperty("idempotent.web.rules.api.retry-after");
    System.clearProperty("idempotent.web.rules.api.paths");
    Idempotency.reset();
  }

  @Test
  void aContainerMadeFilterReadsInitParametersOverProperties() throws Exception {
    Idempotency.install(
        IdempotencyConfig.builder()
            .defaultStore(CaffeineIdempotencyStore.builder().build())
            .build());
    System.setProperty("idempotent.web.rules", "api");
    System.setProperty("idempotent.web.rules.api.retry-after", "4s");
    System.setProperty("idempotent.web.rules.api.paths", "/nowhere");
    FilterHolder holder = new FilterHolder(IdempotencyFilter.class);
    holder.setInitParameter("rules.api.paths", "/api/*");
    holder.setInitParameter("rules.api.key", "required");
    holder.setInitParameter("rules.api.methods", "POST, PUT");
    TestApp app = new TestApp();
    try (TestServer server = TestServer.jettyWith(List.of(holder), app)) {
      HttpClient http = ServletConformance.client(null);
      HttpResponse<byte[]> missing =
          http.send(
              HttpRequest.newBuilder(server.base().resolve("/api/x"))
                  .PUT(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
      ServletConformance.assertProblem(missing, 400, "idempotency-key-missing");

      HttpRequest slow =
          HttpRequest.newBuilder(server.base().resolve("/api/slow?hold=1500"))
              .header("Idempotency-Key", "k-1")
              .PUT(HttpRequest.BodyPublishers.noBody())
              .build();
      var first = http.sendAsync(slow, HttpResponse.BodyHandlers.ofByteArray());
      while (app.runs("/api/slow") == 0) {
        Thread.sleep(5);
      }
      HttpResponse<byte[]> busy = http.send(slow, HttpResponse.BodyHandlers.ofByteArray());
      ServletConformance.assertProblem(busy, 409, "request-in-progress");
      assertThat(busy.headers().firstValue("Retry-After")).hasValue("4");
      assertThat(first.get().statusCode()).isEqualTo(200);
    }
  }

  @Test
  void anUnknownOrBadSettingFailsInitNamingIt() {
    assertThatThrownBy(() -> new IdempotencyFilter().init(config(Map.of("retry-afterr", "1s"))))
        .isInstanceOf(ServletException.class)
        .hasMessageContaining("retry-afterr")
        .hasMessageContaining("retry-after");
    assertThatThrownBy(
            () -> new IdempotencyFilter().init(config(Map.of("max-request-body", "lots"))))
        .isInstanceOf(ServletException.class)
        .hasMessageContaining("max-request-body=lots");
    assertThatThrownBy(() -> new IdempotencyFilter().init(config(Map.of("rules.api.key", "maybe"))))
        .isInstanceOf(ServletException.class)
        .hasMessageContaining("rules [api]")
        .hasMessageContaining("'rules' does not list them");
    assertThatThrownBy(
            () ->
                new IdempotencyFilter()
                    .init(config(Map.of("rules", "api", "rules.api.key", "maybe"))))
        .isInstanceOf(ServletException.class)
        .hasMessageContaining("web rule 'api'")
        .hasMessageContaining("key is 'maybe'; allowed: optional, required, submit-token");
  }

  private static FilterConfig config(Map<String, String> params) {
    return new FilterConfig() {
      @Override
      public String getFilterName() {
        return "idempotency";
      }

      @Override
      public ServletContext getServletContext() {
        return null;
      }

      @Override
      public String getInitParameter(String name) {
        return params.get(name);
      }

      @Override
      public Enumeration<String> getInitParameterNames() {
        return Collections.enumeration(params.keySet());
      }
    };
  }
}
