package dev.idempotent.internal.fingerprint;

import java.lang.reflect.Proxy;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.HashSet;
import java.util.Set;

/**
 * The types whose values are never digested: values with no content of their own (lambdas, proxies,
 * locks, threads, streams...), values whose content would change by being read (persistence
 * proxies, servlet requests), and classes whose names differ between runs.
 */
final class UndigestableTypes {
  private static final Class<?>[] DENIED = {
    java.util.concurrent.locks.Lock.class,
    java.util.concurrent.locks.ReadWriteLock.class,
    java.util.concurrent.locks.Condition.class,
    Thread.class,
    ThreadGroup.class,
    ClassLoader.class,
    java.io.InputStream.class,
    java.io.OutputStream.class,
    java.io.Reader.class,
    java.io.Writer.class,
    java.util.stream.BaseStream.class,
    java.util.Iterator.class,
    java.util.Spliterator.class,
    java.util.Enumeration.class,
    AutoCloseable.class,
    java.util.concurrent.Future.class,
    java.util.concurrent.CompletionStage.class,
    java.util.concurrent.Executor.class,
    java.util.concurrent.Semaphore.class,
    java.util.concurrent.CountDownLatch.class,
    java.util.concurrent.CyclicBarrier.class,
    java.util.concurrent.Phaser.class,
    java.util.Random.class,
    java.util.Timer.class,
    Process.class,
    ProcessHandle.class,
    Runtime.class,
    java.lang.ref.Reference.class,
    Throwable.class,
    Clock.class,
    MessageDigest.class
  };

  /**
   * Supertypes, by name, of values that must never be walked: requests, sessions, persistence
   * internals.
   */
  private static final Set<String> DENIED_NAMES =
      Set.of(
          "jakarta.servlet.ServletRequest",
          "javax.servlet.ServletRequest",
          "jakarta.servlet.ServletResponse",
          "javax.servlet.ServletResponse",
          "jakarta.servlet.http.HttpSession",
          "javax.servlet.http.HttpSession",
          "jakarta.persistence.EntityManager",
          "javax.persistence.EntityManager",
          "org.hibernate.proxy.HibernateProxy",
          "org.hibernate.collection.spi.PersistentCollection",
          "org.hibernate.engine.spi.PersistentAttributeInterceptable");

  private UndigestableTypes() {}

  /** Why values of this class cannot be digested by content, or null when they can. */
  static String refusalOf(Class<?> type) {
    String name = type.getName();
    if (type.isHidden() || name.contains("$$Lambda")) {
      return "is a lambda or hidden class: it has no content to digest";
    }
    if (Proxy.isProxyClass(type)) {
      return "is a dynamic proxy (java.lang.reflect.Proxy): it has no content to digest";
    }
    if (type.isSynthetic()) {
      return "is a synthetic class: it has no content to digest";
    }
    if (name.contains("$$")
        || name.contains("$HibernateProxy$")
        || name.contains("$ByteBuddy$")
        || name.contains("_$$_")) {
      return "is a generated proxy or subclass (its name differs between runs): digest the entity's"
          + " own fields in a key expression";
    }
    if (name.startsWith("org.hibernate.")
        || name.startsWith("org.eclipse.persistence.")
        || name.startsWith("org.apache.openjpa.")) {
      return "belongs to a persistence provider (a lazy collection or proxy): reading it could load"
          + " from the database";
    }
    for (Class<?> denied : DENIED) {
      if (denied.isAssignableFrom(type)) {
        return "is a " + denied.getName() + ": it has no content that identifies a request";
      }
    }
    String deniedSupertype = deniedSupertype(type, new HashSet<>());
    if (deniedSupertype != null) {
      return "is a " + deniedSupertype + ": reading it could change it";
    }
    return null;
  }

  private static String deniedSupertype(Class<?> type, Set<Class<?>> visited) {
    if (type == null || !visited.add(type)) {
      return null;
    }
    if (DENIED_NAMES.contains(type.getName())) {
      return type.getName();
    }
    String found = deniedSupertype(type.getSuperclass(), visited);
    for (Class<?> i : type.getInterfaces()) {
      if (found == null) {
        found = deniedSupertype(i, visited);
      }
    }
    return found;
  }
}
