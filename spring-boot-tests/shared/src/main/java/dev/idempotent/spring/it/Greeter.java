package dev.idempotent.spring.it;

import dev.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A woven class that is not a component: the configuration tests register it as a bean where they
 * need it.
 */
public class Greeter {
  private final AtomicInteger executions = new AtomicInteger();

  @Idempotent(scope = "greet", key = "#name")
  public String greet(String name) {
    return "hello " + name + " #" + executions.incrementAndGet();
  }

  @Idempotent(scope = "greet-second", key = "#name", store = "secondStore")
  public String greetInSecondStore(String name) {
    return "hi " + name + " #" + executions.incrementAndGet();
  }

  @Idempotent(scope = "greet-resolved", keyResolver = TenantKeyResolver.class)
  public String greetResolved(String name) {
    return "hey " + name + " #" + executions.incrementAndGet();
  }

  public int executions() {
    return executions.get();
  }
}
