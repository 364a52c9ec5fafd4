package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The aspect as woven by aspectj-maven-plugin into {@link WovenFeatures}, on the memory store. */
class WovenFeaturesTest {
  private final WovenFeatures f = new WovenFeatures();

  @BeforeEach
  void freshStore() {
    Idempotency.install(
        IdempotencyConfig.builder()
            .defaultStore(CaffeineIdempotencyStore.builder().build())
            .build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  @Test
  void publicPrivateStaticFinalAndSelfInvokedMethodsAreAllWoven() {
    assertThat(f.publicMethod("a")).isEqualTo(f.publicMethod("a")).isEqualTo("public-a-1");
    assertThat(f.callsPrivate("a")).isEqualTo(f.callsPrivate("a")).isEqualTo("private-a-2");
    int before = WovenFeatures.STATIC_RUNS.get();
    assertThat(WovenFeatures.staticMethod("a")).isEqualTo(WovenFeatures.staticMethod("a"));
    assertThat(WovenFeatures.STATIC_RUNS.get()).isEqualTo(before + 1);
    assertThat(f.finalMethod("a")).isEqualTo(f.finalMethod("a")).isEqualTo("final-a-3");
    assertThat(f.selfInvoked("b")).isEqualTo("public-b-4|public-b-4");
    assertThat(f.runs).hasValue(4);
  }

  @Test
  void genericRecordPrimitiveVoidAndNullResultsReplay() {
    List<WovenFeatures.Order> first = f.genericResult("c1");
    assertThat(f.genericResult("c1")).isEqualTo(first).isNotSameAs(first);
    assertThat(f.primitiveResult("k")).isEqualTo(f.primitiveResult("k")).isEqualTo(20);
    f.voidMethod("v");
    f.voidMethod("v");
    assertThat(f.nullResult("n")).isNull();
    assertThat(f.nullResult("n")).isNull();
    assertThat(f.runs).hasValue(4);
  }

  @Test
  void completionStagesAreRecordedWhenTheyComplete() throws Exception {
    CompletableFuture<String> completion = new CompletableFuture<>();
    CompletableFuture<String> first = f.asyncResult("k", completion);
    assertThat(first).isNotDone();
    completion.complete("done");
    assertThat(first.get(1, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(f.asyncResult("k", new CompletableFuture<>()).get(1, TimeUnit.SECONDS))
        .isEqualTo("done");

    var map = f.asyncStage("m").toCompletableFuture().get(1, TimeUnit.SECONDS);
    assertThat(f.asyncStage("m").toCompletableFuture().get(1, TimeUnit.SECONDS)).isEqualTo(map);
    assertThat(f.runs).hasValue(2);
  }

  @Test
  void keysFromAllArgumentsNestedPropertiesAndResolvers() {
    assertThat(f.defaultKeyOfAllArguments("x", 1)).isEqualTo(f.defaultKeyOfAllArguments("x", 1));
    assertThat(f.defaultKeyOfAllArguments("x", 2)).isNotEqualTo(f.defaultKeyOfAllArguments("x", 1));
    WovenFeatures.Customer homeless = new WovenFeatures.Customer("c9", null);
    assertThat(f.nestedKey(homeless)).isEqualTo(f.nestedKey(homeless));
    assertThat(f.resolvedKey("acme")).isEqualTo(f.resolvedKey("acme"));
    assertThat(f.runs).hasValue(4);
  }

  @Test
  void overloadsHaveTheirOwnScopes() {
    assertThat(f.overloaded("k")).startsWith("one-");
    assertThat(f.overloaded("k", 1)).startsWith("two-");
  }

  @Test
  void duplicatesAreRejectedWhenAskedTo() {
    f.rejectDuplicates("d");
    assertThatThrownBy(() -> f.rejectDuplicates("d")).isInstanceOf(DuplicateRequestException.class);
  }

  @Test
  void recordedFailuresReplayAndOthersLetARetryRun() {
    assertThatThrownBy(() -> f.recordsFailure("o1")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> f.recordsFailure("o1"))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid order o1");
    assertThat(f.runs).hasValue(1);
    assertThatThrownBy(() -> f.failsWithoutRecording("t"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> f.failsWithoutRecording("t"))
        .isInstanceOf(IllegalStateException.class);
    assertThat(f.runs).hasValue(3);
  }

  @Test
  void nullInsideAKeyExpressionIsA400NamingTheExpression() {
    assertThatThrownBy(() -> f.strictNestedKey(new WovenFeatures.Customer("c1", null)))
        .isInstanceOfSatisfying(
            IdempotencyKeyException.class, e -> assertThat(e.httpStatus()).isEqualTo(400))
        .hasMessageContaining("strictNestedKey")
        .hasMessageContaining("#customer.address");
    assertThatThrownBy(() -> f.publicMethod(null))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("null");
    assertThat(f.runs).hasValue(0);
  }

  @Test
  void mistakesInTheAnnotationAreConfigurationErrorsNamingMethodAndFix() {
    assertThatThrownBy(() -> f.badSyntax(new WovenFeatures.Order("o", List.of())))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("WovenFeatures.badSyntax")
        .hasMessageContaining("column");
    assertThatThrownBy(() -> f.unknownParameter("x"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("orderId")
        .hasMessageContaining("id");
    assertThatThrownBy(() -> f.badDuration("x"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("ttl")
        .hasMessageContaining("3 weeks");
    assertThatThrownBy(() -> f.unknownStore("x"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("nowhere");
    assertThatThrownBy(() -> f.notSerializable("x"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining(WovenFeatures.Plain.class.getName())
        .hasMessageContaining("Serializable");
    assertThat(f.runs).hasValue(0);
  }
}
