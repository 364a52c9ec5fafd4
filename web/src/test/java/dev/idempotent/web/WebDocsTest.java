package dev.idempotent.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.ResultCodec;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.http.conformance.HttpConformanceSuite;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The code of docs/web.md and docs/configuration.md between its markers, run: the pages show these
 * regions (checked by the examples module's {@code DocsSnippetsTest}); and the page's {@code
 * web.xml} block, read from docs/web.md, declares a filter that works.
 */
class WebDocsTest {
  private static final Path DOCS = Path.of("").toAbsolutePath().getParent().resolve("docs");
  private static final Pattern TOKEN = Pattern.compile("name=\"_submit_token\" value=\"([^\"]+)\"");

  private final AtomicInteger orders = new AtomicInteger();

  @AfterEach
  void tearDown() {
    Idempotency.reset();
  }

  /** Installs the filter as docs/web.md shows, at the container's start. */
  private static final class FilterInstaller implements ServletContainerInitializer {
    private final IdempotencyConfig config;

    FilterInstaller(IdempotencyConfig config) {
      this.config = config;
    }

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext servletContext) {
      // spotless:off
      // docs/web.md: installing the filter (begin)
      HttpIdempotency protocol = HttpIdempotency.builder()
          .idempotency(Idempotency.install(config))     // default: Idempotency.global()
          .rule(IdempotencyRule.builder("orders-api")   // the scope of every record of this rule
              .paths("/api/*")
              .key(IdempotencyRule.Key.REQUIRED)        // 400 without an Idempotency-Key
              .build())
          .rule(IdempotencyRule.submitTokens("checkout").paths("/orders").build())
          .build();
      FilterRegistration.Dynamic filter =
          servletContext.addFilter("idempotency", IdempotencyFilter.builder(protocol).build());
      filter.setAsyncSupported(true);                  // protected requests may go asynchronous
      filter.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), false, "/*");
      // docs/web.md: installing the filter (end)
      // spotless:on
    }
  }

  /** The form page (with the page's token code), the form's target and an API resource. */
  private final class Shop extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      response.setContentType("text/html");
      PrintWriter out = response.getWriter();
      // spotless:off
      // docs/web.md: submit token (begin)
      // GET /: render the form
      String token = IdempotencyFilter.of(request).issueSubmitToken(request, "/orders");  // the path it posts to
      out.print("<input type=\"hidden\" name=\"_submit_token\" value=\"" + token + "\">");
      // docs/web.md: submit token (end)
      // spotless:on
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      response.setContentType("text/plain");
      response.getWriter().print(request.getRequestURI() + " placed " + orders.incrementAndGet());
    }
  }

  private Server start(ServletContainerInitializer initializer, FilterHolder declared)
      throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
    context.setContextPath("/");
    if (initializer != null) {
      context.addServletContainerInitializer(initializer);
    }
    if (declared != null) {
      context.addFilter(
          declared, "/*", java.util.EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
    }
    context.addServlet(new ServletHolder(new Shop()), "/*");
    server.setHandler(context);
    server.start();
    return server;
  }

  private static URI base(Server server) {
    return URI.create(
        "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
  }

  private static HttpResponse<String> post(HttpClient http, URI uri, String key, String form)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theFilterInstalledAsShownProtectsTheApiAndTheForm() throws Exception {
    IdempotencyConfig config =
        IdempotencyConfig.builder()
            .defaultStore(CaffeineIdempotencyStore.builder().build())
            .build();
    Server server = start(new FilterInstaller(config), null);
    try {
      HttpClient http = HttpConformanceSuite.client(new CookieManager());
      URI api = base(server).resolve("/api/orders");
      assertThat(post(http, api, null, "item=book").statusCode()).isEqualTo(400);
      HttpResponse<String> first = post(http, api, "k1", "item=book");
      HttpResponse<String> again = post(http, api, "k1", "item=book");
      assertThat(first.body()).isEqualTo("/api/orders placed 1");
      assertThat(again.body()).isEqualTo(first.body());
      assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");

      URI form = base(server).resolve("/orders");
      assertThat(post(http, form, null, "item=lamp").statusCode()).isEqualTo(400);
      String page =
          http.send(
                  HttpRequest.newBuilder(base(server).resolve("/")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      Matcher token = TOKEN.matcher(page);
      assertThat(token.find()).as("a token in %s", page).isTrue();
      HttpResponse<String> placed =
          post(http, form, null, "item=lamp&_submit_token=" + token.group(1));
      HttpResponse<String> twice =
          post(http, form, null, "item=lamp&_submit_token=" + token.group(1));
      assertThat(placed.body()).isEqualTo("/orders placed 2");
      assertThat(twice.body()).isEqualTo(placed.body());
      assertThat(orders).hasValue(2);
    } finally {
      server.stop();
    }
  }

  @Test
  void theWebXmlOfThePageDeclaresAWorkingFilter() throws Exception {
    String page = Files.readString(DOCS.resolve("web.md"));
    int marker =
        page.indexOf("<!-- tested-by: web/src/test/java/dev/idempotent/web/WebDocsTest.java -->");
    assertThat(marker)
        .as("the web.xml block of docs/web.md, marked as tested by this class")
        .isNotNegative();
    int start = page.indexOf("```xml\n", marker) + "```xml\n".length();
    String xml = page.substring(start, page.indexOf("```", start));
    Matcher filterClass = Pattern.compile("<filter-class>([^<]+)</filter-class>").matcher(xml);
    assertThat(filterClass.find()).isTrue();
    assertThat(filterClass.group(1)).isEqualTo(IdempotencyFilter.class.getName());
    assertThat(xml).contains("<url-pattern>/*</url-pattern>");
    FilterHolder declared =
        new FilterHolder(
            Class.forName(filterClass.group(1)).asSubclass(jakarta.servlet.Filter.class));
    Matcher param =
        Pattern.compile("<param-name>([^<]+)</param-name><param-value>([^<]+)</param-value>")
            .matcher(xml);
    int params = 0;
    while (param.find()) {
      declared.setInitParameter(param.group(1), param.group(2));
      params++;
    }
    assertThat(params).isEqualTo(5);
    Idempotency.install(
        IdempotencyConfig.builder()
            .defaultStore(CaffeineIdempotencyStore.builder().build())
            .build());
    Server server = start(null, declared);
    try {
      HttpClient http = HttpConformanceSuite.client(new CookieManager());
      assertThat(post(http, base(server).resolve("/api/orders"), null, "item=book").statusCode())
          .isEqualTo(400);
      assertThat(post(http, base(server).resolve("/orders"), null, "item=lamp").statusCode())
          .isEqualTo(400);
      assertThat(post(http, base(server).resolve("/api/orders"), "k1", "item=book").statusCode())
          .isEqualTo(200);
    } finally {
      server.stop();
    }
  }

  /** The counter the configuration example's listener feeds. */
  private static final class Metrics {
    private final Map<IdempotencyEvent.Type, AtomicLong> counts = new ConcurrentHashMap<>();

    void count(IdempotencyEvent.Type type) {
      counts.computeIfAbsent(type, t -> new AtomicLong()).incrementAndGet();
    }

    long of(IdempotencyEvent.Type type) {
      return counts.getOrDefault(type, new AtomicLong()).get();
    }
  }

  @Test
  void theProgrammaticConfigurationOfTheDocsInstallsBothStores() throws Exception {
    Config redis = new Config();
    redis
        .useSingleServer()
        .setAddress(
            TestServices.require(TestServices.REDIS_VARIABLE, "redis://127.0.0.1:6379", 6379));
    RedissonClient redissonClient = Redisson.create(redis);
    HikariDataSource dataSource = new HikariDataSource();
    dataSource.setJdbcUrl("jdbc:h2:mem:docs-config;DB_CLOSE_DELAY=-1");
    Metrics metrics = new Metrics();
    try {
      JdbcIdempotencyStore.builder(dataSource).createTable(true).build().close();

      // spotless:off
      // docs/configuration.md: programmatic configuration (begin)
      Idempotency.install(IdempotencyConfig.builder()
          .defaultStore(RedissonIdempotencyStore.builder(redissonClient).build())
          .store("ledger", JdbcIdempotencyStore.builder(dataSource).build())   // @Idempotent(store = "ledger")
          .defaultTtl(Duration.ofHours(48))
          .codec(ResultCodec.javaSerialization("com.example.orders.**"))
          .listener(event -> metrics.count(event.type()))
          .storeFailurePolicy(StoreFailurePolicy.FAIL_CLOSED)
          .build());
      // docs/configuration.md: programmatic configuration (end)
      // spotless:on

      AtomicInteger runs = new AtomicInteger();
      String scope = "docs.config." + UUID.randomUUID();
      for (IdempotencyPolicy policy :
          List.of(
              IdempotencyPolicy.builder(scope).resultType(Integer.class).build(),
              IdempotencyPolicy.builder(scope).store("ledger").resultType(Integer.class).build())) {
        int first = Idempotency.global().call(policy, "k1", runs::incrementAndGet);
        assertThat(Idempotency.global().call(policy, "k1", runs::incrementAndGet)).isEqualTo(first);
        assertThat(Idempotency.global().inspect(policy.settings().store(), scope, "k1"))
            .isPresent();
      }
      assertThat(runs).hasValue(2);
      assertThat(metrics.of(IdempotencyEvent.Type.EXECUTED)).isEqualTo(2);
      assertThat(metrics.of(IdempotencyEvent.Type.REPLAYED)).isEqualTo(2);
      Idempotency.global().delete("", scope, "k1");
    } finally {
      Idempotency.reset();
      redissonClient.shutdown();
      dataSource.close();
    }
  }
}
