package dev.idempotent.internal.codec;

/**
 * The rule both Jackson codecs apply to a class name in a polymorphic type id ({@code
 * JsonTypeInfo.Id.CLASS} or {@code MINIMAL_CLASS}), before Jackson loads the class: it must pass
 * the {@link ClassAllowList} of the declared result type being read, which each read hands over as
 * a per-call attribute under {@link #ATTRIBUTE}. Type ids by name ({@code JsonTypeInfo.Id.NAME}
 * with {@code @JsonSubTypes}) never name a class and are not checked. The codecs switch the
 * application's default typing off in their copies of its mapper, so a type id only appears where a
 * result type asks for one with {@code @JsonTypeInfo}.
 */
final class PolymorphicTypeIds {
  /** The per-call attribute holding the {@link ClassAllowList} of the read. */
  static final Object ATTRIBUTE = PolymorphicTypeIds.class;

  private PolymorphicTypeIds() {}

  /**
   * {@code null} when the class named by a type id may be loaded, else why not (one sentence).
   * Without an allow-list (a read outside the codec's own), every class name is refused.
   */
  static String refusal(Object allowList, String className) {
    if (!(allowList instanceof ClassAllowList list)) {
      return "the type id "
          + className
          + " is refused: class names in type ids are read only by the codec's own reads";
    }
    return list.refusal(className);
  }
}
