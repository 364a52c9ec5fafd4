package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.spring.internal.WebRulesSet;
import dev.idempotent.webflux.IdempotencyWebFilter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.codec.ServerCodecConfigurer;

/**
 * Reactive web applications: {@link IdempotencyProblemDetails} for WebFlux handlers, and the {@link
 * IdempotencyWebFilter} (with idempotent-webflux on the classpath) when {@code
 * idempotent.web.paths} or a rule under {@code idempotent.web.rules} is set, with the same rules
 * the servlet filter gets in a servlet application.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
public class IdempotencyWebFluxAutoConfiguration {

  /** Problem details for library exceptions escaping WebFlux handlers. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "org.springframework.web.reactive.DispatcherHandler",
        "org.springframework.http.ProblemDetail"
      })
  @ConditionalOnProperty(
      prefix = "idempotent.problem-details",
      name = "enabled",
      matchIfMissing = true)
  static class ProblemDetailsConfiguration {
    @Bean
    @ConditionalOnMissingBean
    IdempotencyProblemDetails idempotencyProblemDetails() {
      return new IdempotencyProblemDetails();
    }
  }

  /** The {@code Idempotency-Key} and submit-token web filter. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.idempotent.webflux.IdempotencyWebFilter")
  @Conditional(WebRulesSet.class)
  static class WebFilterConfiguration {
    @Bean
    @ConditionalOnMissingBean
    HttpIdempotency idempotencyWebRules(Idempotency idempotency, IdempotencyProperties properties) {
      return properties.getWeb().protocol(idempotency);
    }

    /** Ordered after Spring Security's web filters, so the caller is the authenticated one. */
    @Bean
    @ConditionalOnMissingBean(name = "idempotencyWebFilter")
    IdempotencyWebFilter idempotencyWebFilter(
        HttpIdempotency protocol, ObjectProvider<ServerCodecConfigurer> codecs) {
      IdempotencyWebFilter.Builder filter = IdempotencyWebFilter.builder(protocol);
      ServerCodecConfigurer configured = codecs.getIfAvailable();
      if (configured != null) {
        filter.codecs(configured);
      }
      return filter.build();
    }
  }
}
