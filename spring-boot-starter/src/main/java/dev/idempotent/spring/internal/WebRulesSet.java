package dev.idempotent.spring.internal;

import dev.idempotent.IdempotencyConfigurationException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * True when a web rule is configured: {@code idempotent.web.paths} (the rule at the top) or a named
 * rule under {@code idempotent.web.rules.<name>}. The list form of {@code idempotent.web.rules}
 * that {@code idempotent.properties} uses ({@code rules=a,b}) is refused here with the Boot form to
 * write instead.
 */
public final class WebRulesSet implements Condition {
  @Override
  public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
    String listed = context.getEnvironment().getProperty("idempotent.web.rules");
    if (listed != null && !listed.isBlank()) {
      throw new IdempotencyConfigurationException(
          "idempotent.web.rules="
              + listed
              + " lists rule names, as idempotent.properties does; in Spring Boot the rules are"
              + " typed: remove it, give each rule's settings under idempotent.web.rules.<name>."
              + " (they are tried in the order they are declared) and, when the order matters"
              + " across property sources, set idempotent.web.order="
              + listed);
    }
    Binder binder = Binder.get(context.getEnvironment());
    return binder.bind("idempotent.web.paths", Bindable.listOf(String.class)).isBound()
        || binder
            .bind("idempotent.web.rules", Bindable.mapOf(String.class, Object.class))
            .isBound();
  }
}
