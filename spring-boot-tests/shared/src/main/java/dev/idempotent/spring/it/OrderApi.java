package dev.idempotent.spring.it;

import dev.idempotent.Idempotent;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * An HTTP API whose handler methods are made idempotent by the client's {@code Idempotency-Key}.
 */
@RestController
public class OrderApi {
  private final AtomicInteger executions = new AtomicInteger();

  /** Holds {@code /slow} calls until the test opens it. */
  public volatile CountDownLatch slowGate = new CountDownLatch(0);

  public final CountDownLatch slowStarted = new CountDownLatch(1);

  @PostMapping("/orders")
  @Idempotent(scope = "api-orders", key = "#key", payload = "#request")
  public Receipt order(
      @RequestHeader(value = "Idempotency-Key", required = false) String key,
      @RequestBody OrderRequest request) {
    return new Receipt(request.item(), request.quantity(), executions.incrementAndGet());
  }

  @PostMapping("/slow")
  @Idempotent(scope = "api-slow", key = "#key")
  public Receipt slow(@RequestHeader("Idempotency-Key") String key) throws InterruptedException {
    slowStarted.countDown();
    slowGate.await(10, TimeUnit.SECONDS);
    return new Receipt("slow", 1, executions.incrementAndGet());
  }

  /** A key resolver whose failure message holds internal data, which must never reach a client. */
  public static final class LeakyKeyResolver implements dev.idempotent.KeyResolver {
    @Override
    public String resolve(dev.idempotent.InvocationContext context) {
      throw new IllegalStateException("vault token s3cr3t-t0ken at 10.1.2.3");
    }
  }

  @PostMapping("/leaky")
  @Idempotent(scope = "api-leaky", keyResolver = LeakyKeyResolver.class)
  public Receipt leaky(@RequestBody OrderRequest request) {
    return new Receipt(request.item(), request.quantity(), executions.incrementAndGet());
  }

  public int executions() {
    return executions.get();
  }
}
