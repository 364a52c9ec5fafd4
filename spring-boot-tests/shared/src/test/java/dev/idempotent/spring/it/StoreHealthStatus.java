package dev.idempotent.spring.it;

import java.lang.reflect.Method;
import org.springframework.context.ApplicationContext;

/**
 * What the starter's health indicator answers, read the same way on Boot 3's and Boot 4's health
 * types (they differ in package, not in these methods).
 */
final class StoreHealthStatus {
  private StoreHealthStatus() {}

  /**
   * The status code ({@code UP}, {@code DOWN}) and details of {@code idempotencyHealthIndicator}.
   */
  static String of(ApplicationContext context) throws ReflectiveOperationException {
    Object indicator = context.getBean("idempotencyHealthIndicator");
    Object health = call(indicator, "health");
    Object status = call(health, "getStatus");
    return call(status, "getCode") + " " + call(health, "getDetails");
  }

  private static Object call(Object target, String name) throws ReflectiveOperationException {
    Method method = target.getClass().getMethod(name);
    method.setAccessible(true);
    return method.invoke(target);
  }
}
