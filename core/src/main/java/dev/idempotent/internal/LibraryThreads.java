package dev.idempotent.internal;

import java.security.AccessController;
import java.security.PrivilegedAction;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The library's own threads (lease renewal, completion retries). Each is a daemon named {@code
 * idempotent-*}, with the system class loader as its context class loader, no inherited
 * thread-local values and no inherited access-control context: whichever application thread happens
 * to start one, the thread never keeps that application's class loader reachable. {@link
 * #stopAll()} stops them all; they start again when needed.
 */
public final class LibraryThreads implements ThreadFactory {
  private final String name;
  private final AtomicInteger count = new AtomicInteger();

  private LibraryThreads(String name) {
    this.name = name;
  }

  /**
   * Threads named {@code name}, or {@code name-2}, {@code name-3} ... for the second and later
   * ones.
   */
  static ThreadFactory named(String name) {
    return new LibraryThreads(name);
  }

  @Override
  @SuppressWarnings("removal")
  public Thread newThread(Runnable task) {
    int n = count.incrementAndGet();
    String threadName = n == 1 ? name : name + "-" + n;
    PrivilegedAction<Thread> create =
        () -> {
          Thread t = new Thread(null, task, threadName, 0, false);
          t.setDaemon(true);
          t.setContextClassLoader(ClassLoader.getSystemClassLoader());
          return t;
        };
    return AccessController.doPrivileged(create);
  }

  /**
   * Stops every thread of the library: the lease renewer (running calls are no longer renewed, so
   * their claims end with their leases) and the completion retries (outcomes still waiting to be
   * recorded are dropped, so their keys run again after their leases). Both start again on the next
   * call that needs them.
   */
  public static void stopAll() {
    LeaseRenewer.shared().shutdown();
    CompletionRetries.shared().shutdown();
    AsyncStores.shutdown();
  }

  /** Stops {@code pool} and waits briefly for its threads; returns the tasks that never ran. */
  static List<Runnable> stop(ExecutorService pool) {
    if (pool == null) {
      return List.of();
    }
    List<Runnable> never = pool.shutdownNow();
    try {
      pool.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return never;
  }
}
