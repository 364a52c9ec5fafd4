package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.Idempotent;
import dev.idempotent.RealClockStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code CompletionStage} method that fails with an {@code Error}, thrown by the call or carried
 * by the stage: the caller sees what it sees without the library, and the key is settled as a
 * failure (released by default).
 */
class CompletionStageErrorsTest {
  private final RealClockStore store = new RealClockStore();
  private final Stages stages = new Stages();

  @BeforeEach
  void install() {
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  static final class Stages {
    final AtomicInteger runs = new AtomicInteger();
    final Error error = new ExceptionInInitializerError("static init failed");

    CompletionStage<String> failingStage() {
      runs.incrementAndGet();
      return CompletableFuture.supplyAsync(
          () -> {
            throw error;
          });
    }

    @Idempotent(key = "#id")
    CompletionStage<String> stage(String id) {
      return failingStage();
    }

    @Idempotent(key = "#id")
    CompletionStage<String> thrown(String id) {
      runs.incrementAndGet();
      throw error;
    }
  }

  private Throwable joined(CompletionStage<String> stage) {
    return catchThrowable(() -> stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
  }

  @Test
  @Timeout(60)
  void aStageFailedWithAnErrorIsWhatItIsWithoutTheLibraryAndReleasesTheKey() throws Throwable {
    Throwable bare = joined(new Stages().failingStage());
    Throwable woven = joined(PlannedCalls.call(stages, "stage", "s-1"));
    assertThat(woven.getClass()).isEqualTo(bare.getClass());
    assertThat(woven.getCause()).isSameAs(stages.error);
    joined(PlannedCalls.call(stages, "stage", "s-1"));
    assertThat(stages.runs).hasValue(2);
  }

  @Test
  @Timeout(60)
  void anErrorThrownByTheCallIsThrownUnchangedAndReleasesTheKey() throws Exception {
    java.lang.reflect.Method thrown = Stages.class.getDeclaredMethod("thrown", String.class);
    Object[] args = {"t-1"};
    MethodPlan plan = new MethodPlan(thrown, null);
    for (int i = 0; i < 2; i++) {
      assertThat(catchThrowable(() -> plan.invoke(stages, args, () -> stages.thrown("t-1"))))
          .isSameAs(stages.error);
    }
    assertThat(stages.runs).hasValue(2);
  }
}
