package dev.idempotent.internal.fingerprint;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/** How values of one runtime class are digested; computed once per class by {@link TypeForms}. */
final class Form {

  /** The encodings, each written by {@link ValueWalker}. */
  enum Kind {
    STRING,
    BOXED,
    FLOATING,
    DECIMAL,
    ENUM,
    BYTES,
    BYTE_BUFFER,
    ELEMENT_BUFFER,
    CHARS,
    OPTIONAL,
    OPTIONAL_PRIMITIVE,
    TEXT,
    DATE,
    TIMESTAMP,
    CALENDAR,
    TYPE,
    STATELESS,
    ARRAY,
    LIST,
    SET,
    BAG,
    MAP,
    ENTRY,
    OBJECT,
    REFUSED
  }

  final Kind kind;

  /** For labelled kinds: the stable public type name (or simple name for boxed numbers). */
  final String label;

  /** For {@link Kind#OBJECT}: the fields or record components, in a fixed order. */
  final Member[] members;

  /** For {@link Kind#REFUSED}: why. */
  final String refusal;

  Form(Kind kind, String label, Member[] members, String refusal) {
    this.kind = kind;
    this.label = label;
    this.members = members;
    this.refusal = refusal;
  }

  static Form of(Kind kind) {
    return new Form(kind, null, null, null);
  }

  static Form labelled(Kind kind, String label) {
    return new Form(kind, label, null, null);
  }

  static Form refused(String reason) {
    return new Form(Kind.REFUSED, null, null, reason);
  }

  boolean isComposite() {
    return kind == Kind.ARRAY
        || kind == Kind.LIST
        || kind == Kind.SET
        || kind == Kind.BAG
        || kind == Kind.MAP
        || kind == Kind.ENTRY
        || kind == Kind.OBJECT;
  }

  /** One field or record component, read without calling the value's methods where possible. */
  static final class Member {
    final String label;
    final Field field;
    final Method accessor;

    Member(String label, Field field, Method accessor) {
      this.label = label;
      this.field = field;
      this.accessor = accessor;
    }

    Object read(Object target) {
      try {
        return field != null ? field.get(target) : accessor.invoke(target);
      } catch (ReflectiveOperationException | RuntimeException e) {
        throw new Refusal("reading " + label + " failed (" + e + ")").at("." + label);
      }
    }
  }
}
