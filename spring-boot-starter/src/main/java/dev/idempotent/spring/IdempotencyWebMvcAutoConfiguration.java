package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.spring.internal.WebRulesSet;
import dev.idempotent.web.IdempotencyFilter;
import jakarta.servlet.DispatcherType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Servlet web applications: {@link IdempotencyProblemDetails} for Spring MVC, and the {@link
 * IdempotencyFilter} (with idempotent-web on the classpath) when {@code idempotent.web.paths} or a
 * rule under {@code idempotent.web.rules} is set.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class IdempotencyWebMvcAutoConfiguration {

  /** Problem details for library exceptions escaping Spring MVC handlers. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "org.springframework.web.servlet.DispatcherServlet",
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

  /** The {@code Idempotency-Key} and submit-token filter. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.idempotent.web.IdempotencyFilter")
  @Conditional(WebRulesSet.class)
  static class FilterConfiguration {
    @Bean
    @ConditionalOnMissingBean
    HttpIdempotency idempotencyWebRules(Idempotency idempotency, IdempotencyProperties properties) {
      return properties.getWeb().protocol(idempotency);
    }

    @Bean
    @ConditionalOnMissingBean(name = "idempotencyFilter")
    FilterRegistrationBean<IdempotencyFilter> idempotencyFilter(HttpIdempotency protocol) {
      FilterRegistrationBean<IdempotencyFilter> registration =
          new FilterRegistrationBean<>(IdempotencyFilter.builder(protocol).build());
      registration.setName("idempotencyFilter");
      registration.setAsyncSupported(true);
      registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
      registration.setOrder(
          Ordered.LOWEST_PRECEDENCE - 100); // after security, before the application's own
      return registration;
    }
  }
}
