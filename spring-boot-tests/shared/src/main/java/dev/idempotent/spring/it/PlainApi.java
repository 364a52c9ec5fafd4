package dev.idempotent.spring.it;

import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring MVC handler that is not woven: protected only by the servlet filter, when a test sets
 * {@code idempotent.web.paths=/plain/*}. Counts its runs.
 */
@RestController
public class PlainApi {
  public final AtomicInteger runs = new AtomicInteger();

  @PostMapping("/plain/orders")
  public String order(@RequestBody String body) {
    return "order " + runs.incrementAndGet() + " of " + body;
  }
}
