package dev.idempotent.spring.internal;

import dev.idempotent.Idempotency;
import org.springframework.beans.factory.DisposableBean;

/**
 * Ends what the installed {@link Idempotency} runs when the application context closes: its
 * background threads and the stores the library created from settings. The stores the starter built
 * on the application's beans are closed after this by their bean definitions, never the beans
 * themselves: a {@code RedissonClient} or {@code DataSource} stays the application's.
 */
public final class Installation implements DisposableBean {
  @Override
  public void destroy() {
    Idempotency.shutdown();
  }
}
