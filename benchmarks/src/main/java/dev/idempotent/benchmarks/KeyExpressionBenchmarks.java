package dev.idempotent.benchmarks;

import dev.idempotent.internal.expression.KeyExpression;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Target 3: a compiled key expression against the same key written by hand. Both read the arguments
 * from the same array (as the woven aspect hands them over), so neither can be folded into a
 * constant.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class KeyExpressionBenchmarks {
  static final String SOURCE = "#request.customerId + ':' + #orderId";

  private KeyExpression expression;
  private Object[] arguments;

  @Setup(Level.Trial)
  public void setUp() {
    expression = KeyExpression.compile(SOURCE, new String[] {"request", "orderId"});
    arguments = new Object[] {new OrderRequest("customer-4711", 1299), 90210L};
    Object compiled = compiledExpression();
    String hand = handWritten();
    if (!hand.equals(compiled)) {
      throw new IllegalStateException(
          "the expression and the hand-written key differ: " + compiled + " vs " + hand);
    }
  }

  /** Ours: {@code KeyExpression.compile(...).evaluate(args)}. */
  @Benchmark
  public Object compiledExpression() {
    return expression.evaluate(arguments);
  }

  /** Baseline: {@code request.customerId() + ":" + orderId}. */
  @Benchmark
  public String handWritten() {
    OrderRequest request = (OrderRequest) arguments[0];
    long orderId = (Long) arguments[1];
    return request.customerId() + ":" + orderId;
  }
}
