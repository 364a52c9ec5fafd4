package dev.idempotent.internal.aspect;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.Idempotent;
import dev.idempotent.InvocationContext;
import dev.idempotent.KeyResolver;
import dev.idempotent.internal.ExecutorAccess;
import dev.idempotent.internal.Fingerprints;
import dev.idempotent.internal.IdempotencyExecutor;
import dev.idempotent.internal.OperationPlan;
import dev.idempotent.internal.expression.ExpressionEvaluationException;
import dev.idempotent.internal.expression.ExpressionException;
import dev.idempotent.internal.expression.ExpressionTypeException;
import dev.idempotent.internal.expression.KeyExpression;
import dev.idempotent.spi.StoreSettings;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Everything about one annotated method that does not change between calls, worked out on its first
 * call: the compiled key and payload expressions, the scope, the result type, and the operation
 * plan resolved against the installed configuration, whose one executor runs the call. A bad
 * attribute fails here, before the method ever runs, with an {@link
 * IdempotencyConfigurationException} naming the method and the attribute.
 */
public final class MethodPlan {
  private final Method method;
  private final Idempotent annotation;

  /** The annotation's {@code onCancel}, read once: an annotation's attributes are proxy calls. */
  private final dev.idempotent.OnCancel onCancel;

  private final String where;
  private final String scope;
  private final String[] parameterNames;
  private final KeyExpression keyExpression;
  private final KeyExpression payloadExpression;
  private final boolean payloadAll;
  private final Type valueType;
  private final ResultKind kind;
  private final boolean async;
  private final Duration ttl;
  private final Duration lease;
  private final Duration waitTimeout;
  private volatile Resolved resolved;

  /** Resolver classes named in annotations, instantiated once each for the whole JVM. */
  private static final ClassValue<KeyResolver> INSTANTIATED_RESOLVERS =
      new ClassValue<>() {
        @Override
        protected KeyResolver computeValue(Class<?> type) {
          try {
            Constructor<?> c = type.getDeclaredConstructor();
            c.setAccessible(true);
            return (KeyResolver) c.newInstance();
          } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalArgumentException(e.toString(), e);
          }
        }
      };

  record Resolved(
      Idempotency owner, IdempotencyExecutor executor, OperationPlan plan, KeyResolver resolver) {}

  public MethodPlan(Method method, String[] sourceParameterNames) {
    this.method = method;
    this.annotation = method.getAnnotation(Idempotent.class);
    if (annotation == null) {
      throw new IllegalStateException(method + " is not annotated with @Idempotent");
    }
    this.where = "@Idempotent on " + describe(method);
    this.scope = annotation.scope().isEmpty() ? defaultScope(method) : annotation.scope();
    this.kind = ResultKind.of(method, where);
    String[] names = parameterNames(method, sourceParameterNames);
    if (kind == ResultKind.SUSPEND) {
      // the continuation kotlinc adds is no argument of the call: keys and payloads never see it
      names = Arrays.copyOf(names, names.length - 1);
    }
    this.parameterNames = names;
    this.keyExpression =
        annotation.keyResolver() == KeyResolver.class && !annotation.key().isEmpty()
            ? compile("key", annotation.key(), names)
            : null;
    this.payloadAll = "*".equals(annotation.payload());
    this.payloadExpression =
        !payloadAll && !annotation.payload().isEmpty()
            ? compile("payload", annotation.payload(), names)
            : null;
    this.async = kind != ResultKind.VALUE;
    this.valueType = kind.valueType(method);
    this.ttl = duration("ttl", annotation.ttl());
    this.lease = duration("lease", annotation.lease());
    this.waitTimeout = duration("waitTimeout", annotation.waitTimeout());
    this.onCancel = annotation.onCancel();
  }

  /**
   * Runs one call of the method through the executor. A {@code Mono} or {@code Flux} method only
   * assembles here: the returned publisher claims and runs on each subscription.
   */
  public Object invoke(Object target, Object[] args, IdempotencyExecutor.Body body)
      throws Throwable {
    if (kind == ResultKind.MONO) {
      return ReactorResults.mono(this, target, args, body);
    }
    if (kind == ResultKind.FLUX) {
      return ReactorResults.flux(this, target, args, body);
    }
    if (kind == ResultKind.SUSPEND) {
      throw new IllegalStateException(where + " is a suspend function: call invokeWith");
    }
    Resolved r = resolved();
    String key = key(r, target, args, null);
    return r.executor.execute(r.plan, key, fingerprint(args), body);
  }

  /**
   * Runs one call of the method, which may replace the arguments it proceeds with: a Kotlin {@code
   * suspend} function's body runs with a continuation of the library's in place of the caller's.
   */
  public Object invokeWith(Object target, Object[] args, Proceed proceed) throws Throwable {
    if (kind == ResultKind.SUSPEND) {
      return SuspendResults.call(this, target, args, proceed);
    }
    return invoke(target, args, () -> proceed.proceed(args));
  }

  /** Whether a call must go through {@link #invokeWith}. */
  public boolean replacesArguments() {
    return kind == ResultKind.SUSPEND;
  }

  /** The woven method's body, run with the arguments given. */
  @FunctionalInterface
  public interface Proceed {
    Object proceed(Object[] args) throws Throwable;
  }

  /** The plan on the installed instance, resolved on its first use. */
  Resolved resolved() {
    Idempotency current = Idempotency.global();
    Resolved r = resolved;
    if (r == null || r.owner != current) {
      r = resolve(current);
    }
    return r;
  }

  /** The payload fingerprint of a call, or {@code null} when the method checks none. */
  String fingerprint(Object[] args) {
    return payloadAll
        ? digestArguments(
            args,
            "payload = \"*\" digests all arguments",
            "give a payload expression that picks the values a repeat must match")
        : payloadExpression == null
            ? null
            : payloadFingerprint(evaluate(payloadExpression, "payload", args));
  }

  /** What messages call the method: "@Idempotent on A.b(C)". */
  String where() {
    return where;
  }

  /** Whether a {@code suspend} function returns {@code Unit}, which is recorded as nothing. */
  boolean resumesWithUnit() {
    return kind == ResultKind.SUSPEND && valueType == void.class;
  }

  /** What happens to the claim when a deferred result's work is cancelled. */
  dev.idempotent.OnCancel onCancel() {
    return onCancel;
  }

  private String digestArguments(Object[] args, String what, String advice) {
    try {
      return Fingerprints.ofArguments(args, parameterNames);
    } catch (Fingerprints.UndigestableValueException e) {
      throw new IdempotencyConfigurationException(
          where + ": " + what + ", but " + e.problem() + "; " + advice, e);
    }
  }

  private String payloadFingerprint(Object value) {
    try {
      return Fingerprints.of(value);
    } catch (Fingerprints.UndigestableValueException e) {
      throw new IdempotencyConfigurationException(
          where
              + ": payload = \""
              + annotation.payload()
              + "\": "
              + e.problem()
              + "; pick plain values (strings, numbers, records) in the payload expression",
          e);
    }
  }

  /**
   * The key of a call.
   *
   * @param subscriberContext the Reactor context of a {@code Mono} or {@code Flux} call, the
   *     coroutine context of a {@code suspend} call, else null
   */
  String key(Resolved r, Object target, Object[] args, Object subscriberContext) {
    if (r.resolver != null) {
      String k;
      try {
        k = r.resolver.resolve(new Invocation(method, target, args, annotation, subscriberContext));
      } catch (RuntimeException e) {
        throw new IdempotencyKeyException(
            where + ": key resolver " + r.resolver.getClass().getName() + " failed: " + e,
            scope,
            e);
      }
      return k;
    }
    if (keyExpression == null) {
      return digestArguments(
          args,
          "the default key digests all arguments",
          "give a key expression (key = \"#order.id\") or a keyResolver");
    }
    try {
      return keyExpression.evaluateKey(args);
    } catch (RuntimeException ex) {
      throw failed(keyExpression, "key", ex);
    }
  }

  private Object evaluate(KeyExpression e, String attribute, Object[] args) {
    try {
      return e.evaluate(args);
    } catch (RuntimeException ex) {
      throw failed(e, attribute, ex);
    }
  }

  /**
   * A mistake in the expression itself (a member the runtime class does not have, a call that is
   * not allowed, a value whose text is its identity) is a configuration error; a null on the path,
   * an index out of range or a getter that threw is a problem with these arguments.
   */
  private RuntimeException failed(KeyExpression e, String attribute, RuntimeException ex) {
    String prefix = where + ": " + attribute + " = \"" + e.source() + "\" failed: ";
    if (ex instanceof ExpressionTypeException) {
      return new IdempotencyConfigurationException(prefix + ex.getMessage(), ex);
    }
    if (ex instanceof ExpressionEvaluationException) {
      return new IdempotencyKeyException(prefix + ex.getMessage(), scope, ex);
    }
    return new IdempotencyKeyException(prefix + ex, scope, ex);
  }

  private synchronized Resolved resolve(Idempotency current) {
    Resolved r = resolved;
    if (r != null && r.owner == current) {
      return r;
    }
    IdempotencyConfig config = current.config();
    KeyResolver resolver = resolver(config);
    String keySource =
        resolver != null
            ? "key resolver " + resolver.getClass().getName()
            : keyExpression != null
                ? "key expression '" + annotation.key() + "'"
                : "the default key";
    OperationPlan plan =
        OperationPlan.ofMethod(
            policy(), config, async, method.getDeclaringClass().getClassLoader(), where, keySource);
    r = new Resolved(current, ExecutorAccess.of(current), plan, resolver);
    resolved = r;
    return r;
  }

  /** The annotation's attributes as the policy a programmatic call would give. */
  private IdempotencyPolicy policy() {
    IdempotencyPolicy.Builder b =
        IdempotencyPolicy.builder(scope)
            .store(annotation.store())
            .onDuplicate(annotation.onDuplicate())
            .onInProgress(annotation.onInProgress())
            .onCancel(onCancel)
            .onAmbiguousFailure(annotation.onAmbiguousFailure())
            .recordFailures(annotation.recordFailures())
            .resultType(valueType);
    if (ttl != null) {
      b.ttl(ttl);
    }
    if (lease != null) {
      b.lease(lease);
    }
    if (waitTimeout != null) {
      b.waitTimeout(waitTimeout);
    }
    return b.build();
  }

  private KeyResolver resolver(IdempotencyConfig config) {
    Class<? extends KeyResolver> type = annotation.keyResolver();
    if (type == KeyResolver.class) {
      return null;
    }
    KeyResolver registered = config.keyResolvers().get(type);
    if (registered != null) {
      return registered;
    }
    try {
      return INSTANTIATED_RESOLVERS.get(type);
    } catch (IllegalArgumentException e) {
      throw new IdempotencyConfigurationException(
          where
              + ": key resolver "
              + type.getName()
              + " has no usable no-argument constructor ("
              + e.getMessage()
              + "); give it one, or register an instance"
              + " with IdempotencyConfig.builder().keyResolver(...)",
          e.getCause());
    }
  }

  private KeyExpression compile(String attribute, String source, String[] names) {
    try {
      return KeyExpression.compile(source, names);
    } catch (ExpressionException e) {
      throw new IdempotencyConfigurationException(
          where + ": " + attribute + " = \"" + source + "\": " + e.getMessage(), e);
    }
  }

  private Duration duration(String attribute, String value) {
    if (value.isEmpty()) {
      return null;
    }
    try {
      return StoreSettings.parseDuration(value);
    } catch (IllegalArgumentException e) {
      throw new IdempotencyConfigurationException(
          where + ": " + attribute + " = \"" + value + "\": " + e.getMessage(), e);
    }
  }

  private static String[] parameterNames(Method method, String[] sourceNames) {
    Parameter[] ps = method.getParameters();
    String[] names = new String[ps.length];
    for (int i = 0; i < ps.length; i++) {
      if (ps[i].isNamePresent()) {
        names[i] = ps[i].getName();
      } else if (sourceNames != null && i < sourceNames.length) {
        names[i] = sourceNames[i];
      }
    }
    return names;
  }

  static String defaultScope(Method m) {
    return m.getDeclaringClass().getName()
        + "."
        + m.getName()
        + Arrays.stream(m.getParameterTypes())
            .map(Class::getTypeName)
            .collect(Collectors.joining(",", "(", ")"));
  }

  private static String describe(Method m) {
    return m.getDeclaringClass().getName()
        + "."
        + m.getName()
        + Arrays.stream(m.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(", ", "(", ")"));
  }

  private record Invocation(
      Method method,
      Object target,
      Object[] arguments,
      Idempotent annotation,
      Object subscriberContext)
      implements InvocationContext {}
}
