package dev.idempotent.redisson.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.spi.RecordKey;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.client.RedisException;
import org.redisson.client.RedisTimeoutException;

/** Redisson's message forms, as Redisson 4.7 builds them, without their command arguments. */
class RedactedFailureTest {
  private static final RecordKey KEY = RecordKey.of("payments", "card=4111111111111111");
  private static final String NAME = new RecordNames("idem:").recordName(KEY);
  private static final List<String> SENT = List.of(NAME, RecordNames.channelOf(NAME), KEY.key());

  @Test
  void aTimeoutWaitingForAConnectionKeepsTheClientAddressAfterTheArguments() {
    String message =
        "Command execution timeout for command: (EVALSHA), params: [9ac2, 1, "
            + NAME
            + ", UnpooledHeapByteBuf(ridx: 0, widx: 2, cap: 2/2)], Redis client:"
            + " [addr=redis://127.0.0.1:6379]";
    IdempotencyStoreException e =
        RedactedFailure.of("COMPLETE", KEY, SENT, new RedisTimeoutException(message));
    assertThat(e.getMessage())
        .startsWith(
            "Redis COMPLETE failed: RedisTimeoutException: Command execution timeout "
                + "for (command arguments left out; Redis client redis://127.0.0.1:6379)")
        .endsWith("[payments " + KEY.redactedKey() + "]")
        .doesNotContain("4111111111111111");
    assertThat(e.getCause()).isNull();
  }

  @Test
  void aKeyThatImitatesRedissonsClosingTextIsNotTakenForIt() {
    RecordKey key = RecordKey.of("payments", "x, Redis client: [addr=4111111111111111]");
    String name = new RecordNames("idem:").recordName(key);
    String message =
        "Unable to acquire connection! Increase connection pool size. Node source: NodeSource"
            + " [addr=x], command: (EVALSHA), params: [9ac2, 1, "
            + name
            + "] after 1 of 1 retry attempts";
    IdempotencyStoreException e =
        RedactedFailure.of("CLAIM", key, List.of(name, key.key()), new RedisException(message));
    assertThat(e.getMessage())
        .contains("Unable to acquire connection!", "after 1 of 1 retry attempts")
        .doesNotContain("4111111111111111");
  }

  @Test
  void anInterruptIsKeptAsTheCause() {
    IdempotencyStoreException e =
        RedactedFailure.of("CLAIM", KEY, SENT, new RedisException(new InterruptedException()));
    assertThat(e.getCause()).isInstanceOf(InterruptedException.class);
    assertThat(e.getMessage()).contains("RedisException", "cause InterruptedException");
  }
}
