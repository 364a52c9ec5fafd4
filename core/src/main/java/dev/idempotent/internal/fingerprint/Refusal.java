package dev.idempotent.internal.fingerprint;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A value, or a value inside it, that has no content-based digest, or a value graph too large to
 * digest. Thrown inside the walk; each composite level adds its step to the path on the way out.
 */
public final class Refusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String reason;
  private final transient Deque<Object> steps = new ArrayDeque<>();

  Refusal(String reason) {
    super(reason, null, false, false);
    this.reason = reason;
  }

  /** Why the value was refused, without the path. */
  public String reason() {
    return reason;
  }

  /**
   * Adds a step in front of the path: an index ({@link Integer}) or a text such as {@code
   * ".field"}.
   */
  Refusal at(Object step) {
    steps.addFirst(step);
    return this;
  }

  /**
   * Where the refused value is, for example {@code order.lines[2].lock}: the root's name (or, when
   * parameter names are given and the first step is an index, that parameter's name), then the
   * steps.
   */
  public String path(String rootName, String[] parameterNames) {
    StringBuilder out = new StringBuilder();
    boolean first = true;
    for (Object step : steps) {
      if (first && parameterNames != null && step instanceof Integer i) {
        out.append(
            i < parameterNames.length && parameterNames[i] != null ? parameterNames[i] : "#p" + i);
      } else {
        if (first) {
          out.append(rootName);
        }
        out.append(step instanceof Integer i ? "[" + i + "]" : step);
      }
      first = false;
    }
    return out.length() == 0 ? rootName : out.toString();
  }
}
