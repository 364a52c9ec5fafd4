package dev.idempotent.internal;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import java.util.function.Function;
import reactor.util.context.Context;

/**
 * What is current on this thread (the call's observation, while its scope is open), captured with
 * Micrometer's context-propagation library and written into the Reactor context of a call's work:
 * with {@code Hooks.enableAutomaticContextPropagation()}, Reactor makes it current again wherever
 * the work's operators run, so the work's own spans are children of the call's. Without the library
 * on the class path nothing is captured. Loaded only by {@link ReactorCalls}.
 */
final class ReactorContextCapture {
  private static final boolean PRESENT = present();

  private ReactorContextCapture() {}

  /** Writes what is current on this thread now into a context; the identity without the library. */
  static Function<Context, Context> current() {
    return PRESENT ? Snapshots.current() : Function.identity();
  }

  private static boolean present() {
    try {
      Class.forName(
          "io.micrometer.context.ContextSnapshotFactory",
          false,
          ReactorContextCapture.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** The only class that links the library: loaded only when it is present. */
  private static final class Snapshots {
    private static final ContextSnapshotFactory FACTORY = ContextSnapshotFactory.builder().build();

    static Function<Context, Context> current() {
      ContextSnapshot snapshot = FACTORY.captureAll();
      return snapshot::updateContext;
    }
  }
}
