package dev.idempotent.examples;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyInProgressException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the failure modes idempotency exists for against the woven {@link OrderService} on the
 * default store (the in-process Caffeine store, found with no configuration) and prints one line
 * per scenario. Exits with status 1 if any key ran more than once.
 *
 * <p>{@code serve [port]} starts the {@link OrderWebApp} (the order form and the JSON API) on
 * 127.0.0.1 instead, port 8080 unless given.
 */
public final class OrderDemo {
  private static final Map<IdempotencyEvent.Type, AtomicLong> EVENTS = new ConcurrentHashMap<>();

  private record Row(
      String scenario, int requests, long executions, long replays, long rejected, int keys) {}

  private OrderDemo() {}

  public static void main(String[] args) throws Exception {
    // The default store comes from idempotent-store-memory via ServiceLoader; we only add a
    // listener that counts.
    IdempotencyConfig auto = IdempotencyConfig.fromProperties();
    Idempotency.install(
        IdempotencyConfig.from(auto)
            .listener(
                e -> EVENTS.computeIfAbsent(e.type(), t -> new AtomicLong()).incrementAndGet())
            .build());
    if (args.length > 0 && args[0].equals("serve")) {
      serve(args.length > 1 ? Integer.parseInt(args[1]) : 8080);
      return;
    }
    List<Row> rows = new ArrayList<>();
    rows.add(doubleClick());
    rows.add(clientRetryAfterTimeout());
    rows.add(paymentCallbackDeliveredThreeTimes());
    rows.add(messageConsumedTwice());
    rows.add(concurrentSubmissions());
    print(rows);
    boolean once = rows.stream().allMatch(r -> r.executions == r.keys);
    System.out.println(
        once ? "OK: exactly one execution per key." : "FAILED: some key ran more than once.");
    if (!once) {
      System.exit(1);
    }
  }

  private static long replays() {
    return EVENTS.getOrDefault(IdempotencyEvent.Type.REPLAYED, new AtomicLong()).get();
  }

  private static Row doubleClick() {
    OrderService orders = new OrderService();
    OrderRequest book = new OrderRequest("alice", "book-42", 1);
    long before = replays();
    OrderReceipt first = orders.submitOrder("click-7f3a", book);
    OrderReceipt second = orders.submitOrder("click-7f3a", book);
    check(first.equals(second), "the second click got the first receipt");
    return new Row(
        "double-clicked \"submit order\"",
        2,
        orders.executions("order:click-7f3a"),
        replays() - before,
        0,
        1);
  }

  private static Row clientRetryAfterTimeout() throws Exception {
    OrderService orders = new OrderService();
    orders.setWorkMillis(400);
    OrderRequest req = new OrderRequest("bob", "lamp-9", 2);
    long before = replays();
    int rejected = 0;
    ExecutorService client = Executors.newSingleThreadExecutor();
    try {
      Future<OrderReceipt> slow = client.submit(() -> orders.submitOrder("retry-19c2", req));
      try {
        slow.get(100, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException timedOut) {
        // the client gives up and retries with the same key while the first call still runs
        try {
          orders.submitOrder("retry-19c2", req);
        } catch (IdempotencyInProgressException e) {
          rejected++;
        }
      }
      OrderReceipt original = slow.get(5, TimeUnit.SECONDS);
      OrderReceipt later =
          orders.submitOrder("retry-19c2", req); // a later retry gets the recorded receipt
      check(original.equals(later), "the later retry got the original receipt");
    } finally {
      client.shutdownNow();
    }
    return new Row(
        "client retry after a timeout",
        3,
        orders.executions("order:retry-19c2"),
        replays() - before,
        rejected,
        1);
  }

  private static Row paymentCallbackDeliveredThreeTimes() {
    OrderService orders = new OrderService();
    PaymentCallback cb = new PaymentCallback("pay-5521", "ord-1", 4_990);
    long before = replays();
    String a = orders.onPaymentCallback(cb);
    String b = orders.onPaymentCallback(cb);
    String c = orders.onPaymentCallback(cb);
    check(a.equals(b) && b.equals(c), "every delivery got the same answer");
    return new Row(
        "payment callback delivered 3 times",
        3,
        orders.executions("payment:pay-5521"),
        replays() - before,
        0,
        1);
  }

  private static Row messageConsumedTwice() {
    OrderService orders = new OrderService();
    long before = replays();
    int first = OrderService.consumeShipment("msg-0042", orders);
    int second = OrderService.consumeShipment("msg-0042", orders);
    check(first == 1 && second == 1, "the redelivered message was not applied again");
    return new Row(
        "message consumed twice",
        2,
        orders.executions("shipment:msg-0042"),
        replays() - before,
        0,
        1);
  }

  private static Row concurrentSubmissions() throws Exception {
    OrderService orders = new OrderService();
    orders.setWorkMillis(50);
    OrderRequest req = new OrderRequest("carol", "desk-1", 1);
    long before = replays();
    int callers = 100;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<OrderReceipt>> results = new ArrayList<>();
    long rejected = 0;
    try {
      for (int i = 0; i < callers; i++) {
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return orders.submitOrderWaiting("burst-0001", req);
                }));
      }
      go.countDown();
      OrderReceipt first = null;
      for (Future<OrderReceipt> f : results) {
        try {
          OrderReceipt r = f.get(30, TimeUnit.SECONDS);
          check(first == null || first.equals(r), "every caller got the first receipt");
          first = first == null ? r : first;
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof IdempotencyInProgressException
              || e.getCause() instanceof DuplicateRequestException) {
            rejected++;
          } else {
            throw e;
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return new Row(
        "100 concurrent submissions, one key",
        callers,
        orders.executions("order:burst-0001"),
        replays() - before,
        rejected,
        1);
  }

  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError("expected: " + what);
    }
  }

  private static void print(List<Row> rows) {
    String fmt = "%-38s %9s %11s %8s %9s%n";
    System.out.printf(fmt, "scenario", "requests", "executions", "replays", "rejected");
    System.out.printf(
        fmt, "-".repeat(38), "-".repeat(9), "-".repeat(11), "-".repeat(8), "-".repeat(9));
    for (Row r : rows) {
      System.out.printf(fmt, r.scenario, r.requests, r.executions, r.replays, r.rejected);
    }
  }

  private static void serve(int port) throws Exception {
    OrderWebApp app = new OrderWebApp("127.0.0.1", port).start();
    String base = "http://127.0.0.1:" + app.port();
    System.out.println("The order form: " + base + "/   (orders placed: " + base + "/orders)");
    System.out.println("The JSON API, e.g.:");
    System.out.println(
        "  curl -i -H 'Idempotency-Key: k1' -H 'Content-Type: application/json' "
            + "-d '{\"item\":\"book\",\"quantity\":1,\"email\":\"ada@example.com\"}' "
            + base
            + "/api/orders");
    System.out.println("Ctrl-C stops it.");
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    app.close();
                  } catch (Exception e) {
                    // stopping anyway
                  }
                }));
    new CountDownLatch(1).await();
  }
}
