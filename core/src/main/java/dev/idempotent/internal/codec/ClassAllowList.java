package dev.idempotent.internal.codec;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which class names a codec may read back (the Java serialization codec, and the class names in the
 * polymorphic type ids of the Jackson codecs), decided on the name alone (before any class is
 * loaded). A class is refused when it is on the deny-list, which wins over every allow pattern, or
 * when no allow pattern matches it. Arrays are judged by their element class; primitive arrays are
 * allowed.
 *
 * <p>The deny-list holds classes whose deserialization or hashing does I/O or runs code the stream
 * chooses: {@code java.net} (a {@code URL} key of a {@code HashMap} resolves its host while the map
 * is read back; an {@code InetAddress} or {@code SocketPermission} looks up names), proxies and
 * their handlers ({@code java.lang.reflect}), serialized lambdas ({@code java.lang.invoke}), {@code
 * java.util.PriorityQueue} (it calls the stream's comparator while it is read), {@code java.rmi},
 * {@code javax.management}, {@code javax.naming}, {@code java.beans}, {@code java.security} ({@code
 * SignedObject} reads a nested stream), the JDK's internal packages, and the packages of well-known
 * gadget chains in common libraries, refused even when a broad pattern such as {@code org.**} would
 * admit them.
 */
final class ClassAllowList {
  private static final String[] DENIED_PACKAGES = {
    "java.net.",
    "java.rmi.",
    "java.beans.",
    "java.security.",
    "java.lang.reflect.",
    "java.lang.invoke.",
    "java.util.logging.",
    "javax.management.",
    "javax.naming.",
    "javax.script.",
    "javax.security.",
    "javax.xml.",
    "javax.sql.",
    "javax.swing.",
    "java.awt.",
    "sun.",
    "com.sun.",
    "jdk.",
    "org.apache.commons.collections.functors.",
    "org.apache.commons.collections4.functors.",
    "org.apache.commons.beanutils.",
    "org.apache.commons.fileupload.",
    "org.apache.xalan.",
    "org.apache.myfaces.",
    "org.apache.wicket.util.upload.",
    "org.apache.click.",
    "org.codehaus.groovy.runtime.",
    "org.springframework.beans.factory.",
    "org.springframework.aop.",
    "org.springframework.transaction.jta.",
    "org.hibernate.tuple.",
    "org.hibernate.property.",
    "org.jboss.interceptor.",
    "org.python.core.",
    "org.mozilla.javascript.",
    "org.aspectj.weaver.tools.cache.",
    "com.mchange.",
    "com.vaadin.data.util.",
    "net.sf.json.",
    "clojure.",
    "bsh.",
    "groovy.",
  };
  private static final String[] DENIED_CLASSES = {
    "java.util.PriorityQueue",
    "java.util.concurrent.PriorityBlockingQueue",
    "org.springframework.core.SerializableTypeWrapper",
  };
  private static final String ALLOWED_IN_DENIED_PACKAGE = "java.net.URI";

  private final List<String> patterns;

  /** The codec's name and the factory call that allows more, for the refusal messages. */
  private final String codecName;

  private final String factory;

  /** The patterns parsed once, so that judging a name allocates nothing. */
  private final Pattern[] compiled;

  /**
   * The classes the encoder has already seen allowed (a class's name and so its verdict never
   * change).
   */
  private final Set<Class<?>> allowedClasses = ConcurrentHashMap.newKeySet();

  ClassAllowList(List<String> patterns) {
    this(patterns, "the Java serialization codec", "ResultCodec.javaSerialization");
  }

  /**
   * {@code codecName} (e.g. "the Jackson codec") and {@code factory} (e.g. "ResultCodec.jackson")
   * appear in the refusal messages.
   */
  ClassAllowList(List<String> patterns, String codecName, String factory) {
    this.codecName = codecName;
    this.factory = factory;
    this.patterns = List.copyOf(patterns);
    this.compiled = this.patterns.stream().map(Pattern::of).toArray(Pattern[]::new);
  }

  /** {@link #refusal(String)} of a loaded class, remembered when it is allowed. */
  String refusal(Class<?> type) {
    if (allowedClasses.contains(type)) {
      return null;
    }
    String refusal = refusal(type.getName());
    if (refusal == null) {
      allowedClasses.add(type);
    }
    return refusal;
  }

  /**
   * {@code null} when {@code className} may be read back, else why not (one sentence naming the
   * class).
   */
  String refusal(String className) {
    String name = elementName(className);
    if (name == null) {
      return null;
    }
    if (isDenied(name)) {
      return "class "
          + name
          + " is refused by "
          + codecName
          + ", whatever the allow-list says: reading it"
          + " back or hashing it can do I/O or run code that stored bytes choose; return plain data"
          + " instead";
    }
    for (Pattern p : compiled) {
      if (p.matches(name)) {
        return null;
      }
    }
    int dot = name.lastIndexOf('.');
    String pattern = dot < 0 ? name : name.substring(0, dot) + ".*";
    return "class "
        + name
        + " is not in the allow-list of "
        + codecName
        + "; if the application returns it, allow it with idempotent.codec.allow="
        + pattern
        + " or "
        + factory
        + "(\""
        + pattern
        + "\")";
  }

  static boolean isDenied(String name) {
    if (name.equals(ALLOWED_IN_DENIED_PACKAGE)) {
      return false;
    }
    for (String pkg : DENIED_PACKAGES) {
      if (name.startsWith(pkg)) {
        return true;
      }
    }
    for (String cls : DENIED_CLASSES) {
      if (name.startsWith(cls)
          && (name.length() == cls.length() || name.charAt(cls.length()) == '$')) {
        return true;
      }
    }
    return false;
  }

  /**
   * The element class of an array name ({@code [[Lcom.x.Y;} gives {@code com.x.Y}); {@code null} if
   * primitive.
   */
  private static String elementName(String className) {
    int i = 0;
    while (i < className.length() && className.charAt(i) == '[') {
      i++;
    }
    if (i == 0) {
      return className;
    }
    if (i < className.length() && className.charAt(i) == 'L' && className.endsWith(";")) {
      return className.substring(i + 1, className.length() - 1);
    }
    return className.length() == i + 1 ? null : className;
  }

  /**
   * The {@link java.io.ObjectInputFilter} pattern forms {@code a.b.C}, {@code a.b.*}, {@code
   * a.b.**}, {@code a.C*}.
   */
  static boolean matches(String pattern, String name) {
    return Pattern.of(pattern).matches(name);
  }

  /**
   * One allow pattern, parsed: the text a name must start with (or equal), and how the rest may go
   * on.
   */
  private record Pattern(String text, Form form) {
    enum Form {
      EXACT,
      PACKAGE,
      SUBPACKAGES,
      PREFIX
    }

    static Pattern of(String pattern) {
      int module = pattern.indexOf('/');
      if (module >= 0) {
        pattern = pattern.substring(module + 1);
      }
      if (pattern.endsWith(".**")) {
        return new Pattern(pattern.substring(0, pattern.length() - 2), Form.SUBPACKAGES);
      }
      if (pattern.endsWith(".*")) {
        return new Pattern(pattern.substring(0, pattern.length() - 1), Form.PACKAGE);
      }
      if (pattern.endsWith("*")) {
        return new Pattern(pattern.substring(0, pattern.length() - 1), Form.PREFIX);
      }
      return new Pattern(pattern, Form.EXACT);
    }

    boolean matches(String name) {
      return switch (form) {
        case EXACT -> text.equals(name);
        case SUBPACKAGES, PREFIX -> name.startsWith(text);
        case PACKAGE -> name.startsWith(text) && name.indexOf('.', text.length()) < 0;
      };
    }
  }
}
