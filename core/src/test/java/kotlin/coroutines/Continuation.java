package kotlin.coroutines;

/**
 * Stands in for Kotlin's {@code Continuation}, which a compiled {@code suspend} function takes as
 * its last parameter; the library recognises it by name only, so no Kotlin runtime is needed to
 * test the refusal.
 */
public interface Continuation<T> {}
