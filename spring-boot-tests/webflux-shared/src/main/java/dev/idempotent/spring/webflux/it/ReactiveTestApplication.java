package dev.idempotent.spring.webflux.it;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot WebFlux application that uses the starter with properties only (see
 * application.properties): the web filter protects {@code /api/*} and the submit form.
 */
@SpringBootApplication
public class ReactiveTestApplication {
  public static void main(String[] args) {
    SpringApplication.run(ReactiveTestApplication.class, args);
  }
}
