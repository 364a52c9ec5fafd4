package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Owner tokens are never given twice in a JVM, whichever threads ask at once. */
class OwnerTokensTest {
  @Test
  void manyThreadsAtOnceNeverGetTheSameToken() throws Exception {
    int threads = OwnerTokens.STRIPES * 2 + 3; // every counter shared by some threads
    int each = 2_000;
    Set<String> seen = ConcurrentHashMap.newKeySet();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
                for (int i = 0; i < each; i++) {
                  seen.add(OwnerTokens.next());
                }
              });
      thread.start();
      started.add(thread);
    }
    start.countDown();
    for (Thread thread : started) {
      thread.join();
    }

    assertThat(seen).hasSize(threads * each);
    String one = OwnerTokens.next();
    assertThat(one).matches("[0-9a-z]+:[0-9]+");
  }
}
