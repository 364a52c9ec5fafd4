package dev.idempotent.spring.internal;

import dev.idempotent.spring.IdempotencyProperties;
import dev.idempotent.spring.messaging.IdempotentMessagingProperties;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What the starter reads at run time that Spring AOT and a native image cannot see in code: the
 * properties classes it binds, the resources the library reads by name ({@code
 * idempotent.properties}, the list of {@code @Idempotent} methods, the JDBC store's schema scripts,
 * the store providers {@code ServiceLoader} finds), the classes it looks for by name (the Jackson
 * lines, the connection pool) and the store providers it makes. The application's own classes (what
 * key expressions read, what results are made of) come from the metadata the annotation processor
 * writes.
 */
public final class IdempotencyRuntimeHints implements RuntimeHintsRegistrar {
  /** The store providers of the library's store modules, made by {@code ServiceLoader}. */
  static final String[] STORE_PROVIDERS = {
    "dev.idempotent.memory.internal.MemoryStoreProvider",
    "dev.idempotent.redisson.internal.RedissonStoreProvider",
    "dev.idempotent.jdbc.internal.JdbcStoreProvider",
    "dev.idempotent.dynamodb.internal.DynamoDbStoreProvider",
    "dev.idempotent.nats.internal.NatsStoreProvider"
  };

  /** The classes the library checks the presence of by name. */
  static final String[] LOOKED_UP = {
    "tools.jackson.databind.ObjectMapper",
    "com.fasterxml.jackson.databind.ObjectMapper",
    "com.zaxxer.hikari.HikariDataSource"
  };

  @Override
  public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
    new BindingReflectionHintsRegistrar()
        .registerReflectionHints(
            hints.reflection(), IdempotencyProperties.class, IdempotentMessagingProperties.class);
    hints
        .resources()
        .registerPattern("idempotent.properties")
        .registerPattern("META-INF/idempotent/methods")
        .registerPattern("META-INF/services/dev.idempotent.spi.IdempotencyStoreProvider")
        .registerPattern("dev/idempotent/jdbc/schema-*.sql");
    for (String provider : STORE_PROVIDERS) {
      hints
          .reflection()
          .registerType(TypeReference.of(provider), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
    }
    for (String type : LOOKED_UP) {
      hints.reflection().registerType(TypeReference.of(type));
    }
  }
}
