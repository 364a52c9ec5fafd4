package dev.idempotent.spring.internal;

import dev.idempotent.Idempotency;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.IdempotencyStore;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * Ends what the installed {@link Idempotency} runs when the application context closes: its
 * background threads, the stores the library created from settings, and the stores the starter
 * built on the application's beans (never the beans themselves: a {@code RedissonClient} or {@code
 * DataSource} stays the application's).
 */
public final class Installation implements DisposableBean {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.spring");
  private final List<IdempotencyStore> built;

  public Installation(List<IdempotencyStore> built) {
    this.built = List.copyOf(built);
  }

  @Override
  public void destroy() {
    List<IdempotencyStore> ours =
        built.stream().filter(s -> !PropertiesConfigLoader.created(s)).toList();
    Idempotency.shutdown();
    for (IdempotencyStore s : ours) {
      try {
        s.close();
      } catch (RuntimeException e) {
        LOG.warn("closing the idempotency store {} failed: {}", s, e.toString());
      }
    }
  }
}
