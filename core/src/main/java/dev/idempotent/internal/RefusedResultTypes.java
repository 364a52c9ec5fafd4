package dev.idempotent.internal;

import java.util.List;
import java.util.Set;

/**
 * The result types a woven method may not have: deferred or one-shot containers whose outcome is
 * not a value the library can record faithfully. Refused by the annotation processor at build time
 * and by the aspect at the first call, with the same message; the container object itself is never
 * recorded.
 */
public final class RefusedResultTypes {
  /** A refused supertype (binary name) and what to return instead. */
  public record Refused(String type, String instead) {}

  public static final String COMPLETION_STAGE = "java.util.concurrent.CompletionStage";
  public static final String MONO = "reactor.core.publisher.Mono";
  public static final String FLUX = "reactor.core.publisher.Flux";

  private static final List<Refused> REFUSED =
      List.of(
          new Refused("org.reactivestreams.Publisher", "return a Mono or a Flux"),
          new Refused("java.util.concurrent.Flow$Publisher", "return a Mono or a Flux"),
          new Refused("kotlinx.coroutines.flow.Flow", "return a List from a suspend function"),
          new Refused("java.util.stream.BaseStream", "return a List"),
          new Refused("java.util.Iterator", "return a List"),
          new Refused("java.util.Spliterator", "return a List"),
          new Refused("java.util.concurrent.Future", "return a CompletionStage"),
          new Refused("io.reactivex.rxjava3.core.Single", "return a Mono"),
          new Refused("io.reactivex.rxjava3.core.Maybe", "return a Mono"),
          new Refused("io.reactivex.rxjava3.core.Observable", "return a Flux"),
          new Refused("io.reactivex.rxjava3.core.Completable", "return a Mono<Void>"));

  private RefusedResultTypes() {}

  /**
   * Why a result of type {@code typeName}, whose supertypes (itself included, by binary name) are
   * {@code supertypes}, is refused; {@code null} when it is supported.
   */
  public static String refusal(String typeName, Set<String> supertypes) {
    if (supertypes.contains(COMPLETION_STAGE) || typeName.equals(MONO) || typeName.equals(FLUX)) {
      return null;
    }
    for (Refused refused : REFUSED) {
      if (supertypes.contains(refused.type())) {
        return "its result type "
            + typeName
            + " is a deferred or one-shot container ("
            + refused.type()
            + ") whose outcome cannot be recorded faithfully, so it is refused rather than"
            + " recorded as an object; "
            + refused.instead()
            + " (supported: any value, CompletionStage, reactor Mono and Flux)";
      }
    }
    return null;
  }
}
