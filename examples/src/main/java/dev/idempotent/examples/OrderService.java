package dev.idempotent.examples;

import dev.idempotent.Idempotent;
import dev.idempotent.OnInProgress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small order service. Each annotated method counts its real executions per key, so the demo and
 * the tests can show that a key runs once, whatever the callers do.
 */
public class OrderService {
  private final AtomicLong orderNumbers = new AtomicLong();
  private final Map<String, AtomicLong> executions = new ConcurrentHashMap<>();
  private volatile long workMillis;

  /** Makes each order take this long, to let duplicates arrive while the first call runs. */
  public void setWorkMillis(long workMillis) {
    this.workMillis = workMillis;
  }

  /** Double clicks and client retries: the key comes from the client's Idempotency-Key. */
  // spotless:off
  // README: the first example (begin)
  @Idempotent(key = "#idempotencyKey", payload = "#request", ttl = "24h")
  public OrderReceipt submitOrder(String idempotencyKey, OrderRequest request) {
    return placeOrder(idempotencyKey, request);
  }
  // README: the first example (end)
  // spotless:on

  /** The same, but a duplicate that arrives while the first call runs waits for its result. */
  @Idempotent(
      key = "#idempotencyKey",
      payload = "#request",
      onInProgress = OnInProgress.WAIT,
      waitTimeout = "10s")
  public OrderReceipt submitOrderWaiting(String idempotencyKey, OrderRequest request) {
    return placeOrder(idempotencyKey, request);
  }

  /** A provider's callback; the work happens in a private method, called from inside the class. */
  public String onPaymentCallback(PaymentCallback callback) {
    return capturePayment(callback);
  }

  @Idempotent(key = "#callback.paymentId", scope = "payments.capture")
  private String capturePayment(PaymentCallback callback) {
    count("payment:" + callback.paymentId());
    return "captured " + callback.amountCents() + " cents for " + callback.orderId();
  }

  /**
   * A message consumer: static, keyed by the message id, so a redelivered message is not applied
   * twice.
   */
  @Idempotent(key = "'shipment:' + #messageId", onInProgress = OnInProgress.WAIT)
  public static int consumeShipment(String messageId, OrderService service) {
    return (int) service.count("shipment:" + messageId);
  }

  private OrderReceipt placeOrder(String key, OrderRequest request) {
    long n = count("order:" + key);
    if (workMillis > 0) {
      try {
        Thread.sleep(workMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return new OrderReceipt(
        "ord-" + orderNumbers.incrementAndGet(),
        request.customerId(),
        request.sku(),
        request.quantity(),
        n);
  }

  private long count(String key) {
    return executions.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
  }

  /**
   * How many times the body for {@code key} really ran (key as {@code order:K}, {@code payment:P},
   * ...).
   */
  public long executions(String key) {
    AtomicLong n = executions.get(key);
    return n == null ? 0 : n.get();
  }
}
