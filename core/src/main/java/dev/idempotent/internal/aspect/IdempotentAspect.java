package dev.idempotent.internal.aspect;

import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.SuppressAjWarnings;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * The woven adapter: for every execution of an {@code @Idempotent} method it finds the method's
 * cached {@link MethodPlan} and hands the call to the executor. All semantics live in plain Java
 * behind it.
 *
 * <p>Woven into users' classes by {@code aspectj-maven-plugin} with {@code idempotent-core} as an
 * aspect library. Execution join points are woven into the method body itself, so private, static,
 * final and self-invoked methods are covered; no proxy is involved.
 */
@Aspect
public class IdempotentAspect {
  private final ConcurrentHashMap<JoinPoint.StaticPart, MethodPlan> plans =
      new ConcurrentHashMap<>();

  /**
   * Runs one call. Woven into every module (and its tests) that names core as an aspect library:
   * one without an {@code @Idempotent} method is normal, so ajc is told not to warn that this
   * advice matched nothing there ({@code adviceDidNotMatch}).
   */
  @Around("execution(@dev.idempotent.Idempotent * *(..))")
  @SuppressAjWarnings("adviceDidNotMatch")
  public Object aroundIdempotentMethod(ProceedingJoinPoint pjp) throws Throwable {
    JoinPoint.StaticPart part = pjp.getStaticPart();
    MethodPlan plan = plans.get(part);
    if (plan == null) {
      plan = plans.computeIfAbsent(part, IdempotentAspect::plan);
    }
    if (plan.replacesArguments()) {
      return plan.invokeWith(pjp.getThis(), pjp.getArgs(), pjp::proceed);
    }
    return plan.invoke(pjp.getThis(), pjp.getArgs(), pjp::proceed);
  }

  private static MethodPlan plan(JoinPoint.StaticPart part) {
    MethodSignature signature = (MethodSignature) part.getSignature();
    Method method = signature.getMethod();
    return new MethodPlan(method, signature.getParameterNames());
  }
}
