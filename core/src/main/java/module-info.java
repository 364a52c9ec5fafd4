/**
 * {@code @Idempotent}, its configuration and the programmatic API ({@code dev.idempotent}; its
 * Reactor form, which needs Reactor, in {@code dev.idempotent.reactor}), and the store SPI ({@code
 * dev.idempotent.spi}).
 *
 * <p>{@code dev.idempotent.internal.aspect} is exported only because code woven by ajc calls the
 * aspect ({@code IdempotentAspect.aspectOf()}) from the user's own module; it is not API. A user's
 * named module needs {@code requires dev.idempotent.core} and must open the packages whose classes
 * the library reads by reflection (key and payload expressions, {@code keyResolver} classes, the
 * Jackson codec) to it, for example {@code opens com.example.orders to dev.idempotent.core;}.
 */
module dev.idempotent.core {
  requires transitive org.aspectj.runtime;
  requires org.slf4j;
  requires java.sql;
  requires static com.fasterxml.jackson.databind;
  requires static tools.jackson.databind;
  requires static tools.jackson.core;
  requires static reactor.core;
  requires static org.reactivestreams;
  requires static context.propagation;
  requires static kotlin.stdlib;
  requires java.compiler;

  exports dev.idempotent;
  exports dev.idempotent.spi;
  exports dev.idempotent.reactor;
  exports dev.idempotent.internal.aspect;
  exports dev.idempotent.internal to
      dev.idempotent.http;

  uses dev.idempotent.spi.IdempotencyStoreProvider;

  provides javax.annotation.processing.Processor with
      dev.idempotent.internal.processor.IdempotentProcessor;
}
