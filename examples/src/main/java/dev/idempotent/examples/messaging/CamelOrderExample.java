package dev.idempotent.examples.messaging;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.camel.StoreIdempotentRepository;
import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * The Apache Camel example: an order route whose {@code idempotentConsumer} keeps its keys in
 * {@link StoreIdempotentRepository} on the library's claims in the in-process store, fed from a
 * {@code direct:} endpoint (any consumer endpoint, a broker's included, works the same). It sends
 * order messages and prints one line per scenario; a replay here is a duplicate the route skipped.
 * Exits with status 1 if an order was placed more than once.
 */
public final class CamelOrderExample {
  private final Map<String, AtomicLong> ordersPlaced = new ConcurrentHashMap<>();
  private final AtomicLong deliveries = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private volatile Duration work = Duration.ZERO;

  private CamelOrderExample() {}

  public static void main(String[] args) throws Exception {
    if (!ScenarioRow.print(run())) {
      System.exit(1);
    }
  }

  /** Runs the scenarios on a Camel context of its own. */
  public static List<ScenarioRow> run() throws Exception {
    return new CamelOrderExample().scenarios();
  }

  private List<ScenarioRow> scenarios() throws Exception {
    IdempotencyStore store = CaffeineIdempotencyStore.builder().build();
    Idempotency idempotency =
        Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
    // spotless:off
    // docs/messaging.md: the Camel example (begin)
    MessageIdempotency orders = MessageIdempotency.builder("orders-route")  // the records' scope
        .idempotency(idempotency)
        .inProgressWait(Duration.ofSeconds(5))  // a duplicate in progress waits this long for the first
        .build();
    StoreIdempotentRepository repository = StoreIdempotentRepository.builder(orders).build();
    RouteBuilder routes = new RouteBuilder() {
      @Override
      public void configure() {
        from("direct:orders")
            .process(exchange -> deliveries.incrementAndGet())
            .idempotentConsumer(header(MessageKey.HEADER), repository)
                .skipDuplicate(false)           // let duplicates through, marked, to count them
                .choice()
                    .when(exchangeProperty(Exchange.DUPLICATE_MESSAGE).isEqualTo(true))
                        .process(exchange -> duplicates.incrementAndGet())
                    .otherwise()
                        .process(exchange -> placeOrder(exchange.getMessage().getBody(String.class)));
      }
    };
    // docs/messaging.md: the Camel example (end)
    // spotless:on
    try (CamelContext camel = new DefaultCamelContext()) {
      camel.addRoutes(routes);
      camel.start();
      ProducerTemplate producer = camel.createProducerTemplate();
      List<ScenarioRow> rows = new ArrayList<>();

      rows.add(
          scenario(
              "producer resends, same Idempotency-Key",
              "order-3001",
              () -> {
                producer.sendBodyAndHeader(
                    "direct:orders", "order-3001", MessageKey.HEADER, "k-3001");
                producer.sendBodyAndHeader(
                    "direct:orders", "order-3001", MessageKey.HEADER, "k-3001");
              }));

      work = Duration.ofMillis(300);
      rows.add(
          scenario(
              "10 concurrent deliveries, one key",
              "order-3002",
              () -> {
                ExecutorService senders = Executors.newFixedThreadPool(10);
                try {
                  List<Future<?>> sent = new ArrayList<>();
                  for (int i = 0; i < 10; i++) {
                    sent.add(
                        senders.submit(
                            () ->
                                producer.sendBodyAndHeader(
                                    "direct:orders", "order-3002", MessageKey.HEADER, "k-3002")));
                  }
                  for (Future<?> f : sent) {
                    f.get();
                  }
                } finally {
                  senders.shutdown();
                }
              }));
      return rows;
    }
  }

  /** The route's work: places the order named by the body; it knows nothing of duplicates. */
  private void placeOrder(String orderId) {
    RabbitOrderExample.sleep(work);
    ordersPlaced.computeIfAbsent(orderId, k -> new AtomicLong()).incrementAndGet();
  }

  private interface Sending {
    void send() throws Exception;
  }

  private ScenarioRow scenario(String name, String orderId, Sending sending) throws Exception {
    long deliveriesBefore = deliveries.get();
    long duplicatesBefore = duplicates.get();
    sending.send();
    AtomicLong placed = ordersPlaced.getOrDefault(orderId, new AtomicLong());
    return new ScenarioRow(
        name,
        deliveries.get() - deliveriesBefore,
        placed.get(),
        duplicates.get() - duplicatesBefore);
  }
}
