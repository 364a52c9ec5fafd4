package dev.idempotent.examples.reactive;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.examples.OrderReceipt;
import dev.idempotent.examples.OrderRequest;
import dev.idempotent.http.HttpIdempotency;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;

/**
 * The WebFlux example: runs the failure modes idempotency exists for against {@link
 * ReactiveOrderApp} (HTTP on Reactor Netty, 127.0.0.1, a free port) and its {@link
 * ReactiveOrderService} (methods returning {@code Mono} and {@code Flux}) on the in-process store,
 * and prints one line per scenario. Exits with status 1 if any key ran more than once.
 *
 * <p>{@code serve [port]} serves the API on 127.0.0.1 instead, port 8080 unless given.
 */
public final class ReactiveOrderDemo {
  private static final String BOOK =
      "{\"item\":\"book\",\"quantity\":1,\"email\":\"ada@example.com\"}";
  private static final String TWO_BOOKS =
      "{\"item\":\"book\",\"quantity\":2,\"email\":\"ada@example.com\"}";

  /** One scenario's outcome: what was sent, how often the work ran, how often it was replayed. */
  public record Row(
      String scenario, int requests, long executions, long replays, List<Integer> statuses) {}

  private final HttpClient http = HttpClient.newHttpClient();
  private final Map<String, AtomicLong> replaysByScope = new ConcurrentHashMap<>();
  private final ReactiveOrderService orders = new ReactiveOrderService();

  private ReactiveOrderDemo() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("serve")) {
      serve(args.length > 1 ? Integer.parseInt(args[1]) : 8080);
      return;
    }
    List<Row> rows = run();
    print(rows);
    boolean once = rows.stream().allMatch(r -> r.executions() == 1);
    System.out.println(
        once ? "OK: exactly one execution per key." : "FAILED: some key ran more than once.");
    if (!once) {
      System.exit(1);
    }
  }

  /**
   * Installs the global {@link Idempotency} (the default store, from idempotent-store-memory, and a
   * listener that counts the replays) and runs every scenario on an app of its own.
   */
  static List<Row> run() throws Exception {
    ReactiveOrderDemo demo = new ReactiveOrderDemo();
    Idempotency.install(
        IdempotencyConfig.from(IdempotencyConfig.fromProperties()).listener(demo::count).build());
    return demo.scenarios();
  }

  private List<Row> scenarios() throws Exception {
    try (ReactiveOrderApp app = new ReactiveOrderApp("127.0.0.1", 0, orders)) {
      URI api = URI.create("http://127.0.0.1:" + app.port() + "/api/orders");
      List<Row> rows = new ArrayList<>();
      rows.add(doubleSubmit(api));
      rows.add(retryingSubscriber());
      rows.add(anotherOrderWithTheKey(api));
      rows.add(concurrentRequests(api));
      rows.add(labelsReadTwice());
      return rows;
    }
  }

  private void count(IdempotencyEvent event) {
    if (event.type() == IdempotencyEvent.Type.REPLAYED) {
      replaysByScope.computeIfAbsent(event.scope(), s -> new AtomicLong()).incrementAndGet();
    }
  }

  private long replays(String scope) {
    AtomicLong n = replaysByScope.get(scope);
    return n == null ? 0 : n.get();
  }

  private Row doubleSubmit(URI api) throws Exception {
    List<HttpResponse<String>> answers =
        List.of(post(api, "k-7f3a", BOOK), post(api, "k-7f3a", BOOK));
    check(answers.get(0).body().equals(answers.get(1).body()), "the repeat got the first order");
    return httpRow("double submit, one Idempotency-Key", "k-7f3a", answers);
  }

  private Row retryingSubscriber() {
    OrderRequest lamp = new OrderRequest("bob", "lamp", 2);
    AtomicInteger mails = new AtomicInteger();
    long before = replays("orders.place");
    // The confirmation e-mail fails twice; retry() subscribes to the whole chain again, and the
    // order itself is replayed, not placed again.
    OrderReceipt receipt =
        orders
            .placeOrder("k-19c2", lamp)
            .flatMap(placed -> sendConfirmation(placed, mails))
            .retry(2)
            .block(Duration.ofSeconds(10));
    check(receipt != null && mails.get() == 3, "the third attempt sent the e-mail");
    return new Row(
        "a retry()ing subscriber, 2 failures",
        3,
        orders.executions("order:k-19c2"),
        replays("orders.place") - before,
        List.of());
  }

  /** A mail server that is busy the first two times. */
  private static Mono<OrderReceipt> sendConfirmation(OrderReceipt receipt, AtomicInteger mails) {
    return Mono.defer(
        () ->
            mails.incrementAndGet() <= 2
                ? Mono.error(new IllegalStateException("mail server busy"))
                : Mono.just(receipt));
  }

  private Row anotherOrderWithTheKey(URI api) throws Exception {
    List<HttpResponse<String>> answers =
        List.of(post(api, "k-5521", BOOK), post(api, "k-5521", TWO_BOOKS));
    return httpRow("the key again with another order", "k-5521", answers);
  }

  private Row concurrentRequests(URI api) throws Exception {
    orders.setWork(Duration.ofMillis(200));
    try {
      List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        sent.add(
            http.sendAsync(request(api, "k-0001", BOOK), HttpResponse.BodyHandlers.ofString()));
      }
      List<HttpResponse<String>> answers = new ArrayList<>();
      for (CompletableFuture<HttpResponse<String>> f : sent) {
        answers.add(f.get());
      }
      return httpRow("20 concurrent requests, one key", "k-0001", answers);
    } finally {
      orders.setWork(Duration.ZERO);
    }
  }

  private Row labelsReadTwice() {
    long before = replays("orders.labels");
    List<String> first = orders.printLabels("ord-3", 3).collectList().block(Duration.ofSeconds(10));
    List<String> again = orders.printLabels("ord-3", 3).collectList().block(Duration.ofSeconds(10));
    check(first != null && first.size() == 3 && first.equals(again), "the same three labels");
    return new Row(
        "a Flux of 3 labels, subscribed twice",
        2,
        orders.executions("labels:ord-3"),
        replays("orders.labels") - before,
        List.of());
  }

  /** A row of HTTP answers: the replays are the answers marked {@code Idempotent-Replayed}. */
  private Row httpRow(String scenario, String key, List<HttpResponse<String>> answers) {
    long replayed =
        answers.stream()
            .filter(a -> a.headers().firstValue(HttpIdempotency.REPLAYED_HEADER).isPresent())
            .count();
    return new Row(
        scenario,
        answers.size(),
        orders.executions("order:" + key),
        replayed,
        answers.stream().map(HttpResponse::statusCode).toList());
  }

  private HttpResponse<String> post(URI api, String key, String body) throws Exception {
    return http.send(request(api, key, body), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest request(URI api, String key, String body) {
    return HttpRequest.newBuilder(api)
        .header(HttpIdempotency.KEY_HEADER, key)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError("expected: " + what);
    }
  }

  /** "2 x 201", "1 x 201, 1 x 422"; "-" when the scenario sent no HTTP request. */
  static String statuses(List<Integer> statuses) {
    if (statuses.isEmpty()) {
      return "-";
    }
    Map<Integer, Long> counts =
        statuses.stream()
            .collect(Collectors.groupingBy(s -> s, LinkedHashMap::new, Collectors.counting()));
    return counts.entrySet().stream()
        .map(e -> e.getValue() + " x " + e.getKey())
        .collect(Collectors.joining(", "));
  }

  private static void print(List<Row> rows) {
    String fmt = "%-38s %9s %11s %8s  %s%n";
    System.out.printf(fmt, "scenario", "requests", "executions", "replays", "HTTP statuses");
    System.out.printf(
        fmt, "-".repeat(38), "-".repeat(9), "-".repeat(11), "-".repeat(8), "-".repeat(16));
    for (Row r : rows) {
      System.out.printf(
          fmt, r.scenario(), r.requests(), r.executions(), r.replays(), statuses(r.statuses()));
    }
  }

  private static void serve(int port) throws Exception {
    Idempotency.install(IdempotencyConfig.fromProperties());
    ReactiveOrderApp app = new ReactiveOrderApp("127.0.0.1", port, new ReactiveOrderService());
    String api = "http://127.0.0.1:" + app.port() + "/api/orders";
    System.out.println("The order API on Reactor Netty, e.g.:");
    System.out.println(
        "  curl -i -H 'Idempotency-Key: k1' -H 'Content-Type: application/json' -d '"
            + BOOK
            + "' "
            + api);
    System.out.println("Ctrl-C stops it.");
    Runtime.getRuntime().addShutdownHook(new Thread(app::close));
    new CountDownLatch(1).await();
  }
}
