package dev.idempotent.redisson.internal;

import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.ByteArrayCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link RecordScript}s through a Redisson client, blocking or not: by SHA with {@code
 * EVALSHA} in one round trip; after a {@code NOSCRIPT} answer (a restarted or failed-over server,
 * {@code SCRIPT FLUSH}) it loads the script again and sends it once more; with replica
 * acknowledgements asked, a write is pipelined with {@code WAIT} on the same connection. Failures
 * come out as {@link RedactedFailure}s. Both faces send the same command; the blocking one waits
 * for Redisson's future on the calling thread (as Redisson's own blocking methods do), the
 * non-blocking one completes its stage from Redisson's threads and never waits.
 */
public final class ScriptRunner {
  private static final Logger log = LoggerFactory.getLogger(ScriptRunner.class);

  private final RedissonClient redisson;
  private final RScript script;
  private final int syncReplicas;
  private final Duration syncTimeout;
  private final boolean failUnsyncedCompletion;

  /**
   * @param syncReplicas replicas that must acknowledge each write, 0 for none
   * @param syncTimeout how long a write waits for them
   * @param failUnsyncedCompletion whether a completion fewer replicas acknowledged fails the call
   *     ({@link OutcomeNotRecordedException#unconfirmed}) instead of only logging
   */
  public ScriptRunner(
      RedissonClient redisson,
      int syncReplicas,
      Duration syncTimeout,
      boolean failUnsyncedCompletion) {
    this.redisson = redisson;
    this.script = redisson.getScript(ByteArrayCodec.INSTANCE);
    this.syncReplicas = syncReplicas;
    this.syncTimeout = syncTimeout;
    this.failUnsyncedCompletion = failUnsyncedCompletion;
  }

  /** Loads every script into Redis ({@code SCRIPT LOAD} on every node), blocking. */
  public void loadAll() {
    for (RecordScript s : RecordScript.values()) {
      await(load(s));
    }
  }

  /**
   * Runs {@code s} on the record {@code name} of {@code key} and waits for its reply.
   *
   * @throws dev.idempotent.IdempotencyStoreException a {@link RedactedFailure}, for any failure
   */
  public <R> R run(RecordScript s, RecordKey key, String name, List<Object> keys, Object... args) {
    try {
      try {
        return await(send(s, name, keys, args));
      } catch (RuntimeException e) {
        if (!isNoScript(e)) {
          throw e;
        }
        logReload(s);
        await(load(s));
        return await(send(s, name, keys, args));
      }
    } catch (OutcomeNotRecordedException e) {
      throw e;
    } catch (RuntimeException e) {
      throw RedactedFailure.of(s.name(), key, RecordNames.sent(key, name), e);
    }
  }

  /**
   * Runs {@code s} on the record {@code name} of {@code key} without blocking: the stage completes
   * with {@code decode} of the reply, or exceptionally with a {@link RedactedFailure} (or with what
   * {@code decode} threw).
   */
  public <R, T> CompletableFuture<T> runAsync(
      RecordScript s,
      RecordKey key,
      String name,
      List<Object> keys,
      Function<R, T> decode,
      Object... args) {
    CompletableFuture<T> result = new CompletableFuture<>();
    deliver(result, s, key, name, keys, decode, args, false);
    return result;
  }

  private <R, T> void deliver(
      CompletableFuture<T> result,
      RecordScript s,
      RecordKey key,
      String name,
      List<Object> keys,
      Function<R, T> decode,
      Object[] args,
      boolean reloaded) {
    CompletableFuture<R> sent;
    try {
      sent = send(s, name, keys, args);
    } catch (RuntimeException e) {
      result.completeExceptionally(
          RedactedFailure.of(s.name(), key, RecordNames.sent(key, name), e));
      return;
    }
    sent.whenComplete(
        (reply, error) -> {
          if (error == null) {
            try {
              result.complete(decode.apply(reply));
            } catch (RuntimeException e) {
              result.completeExceptionally(e);
            }
          } else if (!reloaded && isNoScript(error)) {
            logReload(s);
            load(s)
                .whenComplete(
                    (sha, loadError) -> {
                      if (loadError == null) {
                        deliver(result, s, key, name, keys, decode, args, true);
                      } else {
                        result.completeExceptionally(
                            RedactedFailure.of(
                                s.name(), key, RecordNames.sent(key, name), loadError));
                      }
                    });
          } else if (unwrap(error) instanceof OutcomeNotRecordedException unsynced) {
            result.completeExceptionally(unsynced);
          } else {
            result.completeExceptionally(
                RedactedFailure.of(s.name(), key, RecordNames.sent(key, name), error));
          }
        });
  }

  /**
   * Runs {@code s} once per record of {@code names} (each record its own key, {@code args.get(i)}
   * its arguments), pipelined in one Redisson batch: one round trip per Redis node, never {@code
   * WAIT}. The stage completes with the replies in the order of {@code names}, or exceptionally
   * with a {@link RedactedFailure} naming the first record (the batch failed as a whole). After a
   * {@code NOSCRIPT} answer the script is loaded and the batch sent once more.
   */
  public CompletableFuture<List<Object>> runEachAsync(
      RecordScript s, List<RecordKey> keys, List<String> names, List<Object[]> args) {
    CompletableFuture<List<Object>> result = new CompletableFuture<>();
    deliverEach(result, s, keys, names, args, false);
    return result;
  }

  private void deliverEach(
      CompletableFuture<List<Object>> result,
      RecordScript s,
      List<RecordKey> keys,
      List<String> names,
      List<Object[]> args,
      boolean reloaded) {
    CompletableFuture<List<Object>> sent;
    try {
      sent = sendEach(s, names, args);
    } catch (RuntimeException e) {
      result.completeExceptionally(failureOfEach(s, keys, names, e));
      return;
    }
    sent.whenComplete(
        (replies, error) -> {
          if (error == null) {
            result.complete(replies);
          } else if (!reloaded && isNoScript(error)) {
            logReload(s);
            load(s)
                .whenComplete(
                    (sha, loadError) -> {
                      if (loadError == null) {
                        deliverEach(result, s, keys, names, args, true);
                      } else {
                        result.completeExceptionally(failureOfEach(s, keys, names, loadError));
                      }
                    });
          } else {
            result.completeExceptionally(failureOfEach(s, keys, names, error));
          }
        });
  }

  private CompletableFuture<List<Object>> sendEach(
      RecordScript s, List<String> names, List<Object[]> args) {
    RScript.ReturnType type =
        s.repliesWithList() ? RScript.ReturnType.LIST : RScript.ReturnType.LONG;
    RBatch batch = redisson.createBatch(BatchOptions.defaults());
    org.redisson.api.RScriptAsync batched = batch.getScript(ByteArrayCodec.INSTANCE);
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      batched.evalShaAsync(
          name, RScript.Mode.READ_WRITE, s.sha(), type, List.of(name), args.get(i));
    }
    return batch
        .executeAsync()
        .toCompletableFuture()
        .thenApply(r -> List.<Object>copyOf(r.getResponses()));
  }

  private static RuntimeException failureOfEach(
      RecordScript s, List<RecordKey> keys, List<String> names, Throwable error) {
    List<String> sent = new java.util.ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      sent.addAll(RecordNames.sent(keys.get(i), names.get(i)));
    }
    return RedactedFailure.of(
        s.name() + " of " + names.size() + " records", keys.get(0), sent, error);
  }

  /** Sends {@code s} once; the future fails with Redisson's own exception. */
  @SuppressWarnings("unchecked")
  private <R> CompletableFuture<R> send(
      RecordScript s, String name, List<Object> keys, Object[] args) {
    RScript.ReturnType type =
        s.repliesWithList() ? RScript.ReturnType.LIST : RScript.ReturnType.LONG;
    if (syncReplicas == 0 || !s.waitsForReplicas()) {
      return script
          .<R>evalShaAsync(name, RScript.Mode.READ_WRITE, s.sha(), type, keys, args)
          .toCompletableFuture();
    }
    RBatch batch = redisson.createBatch(BatchOptions.defaults().sync(syncReplicas, syncTimeout));
    batch
        .getScript(ByteArrayCodec.INSTANCE)
        .evalShaAsync(name, RScript.Mode.READ_WRITE, s.sha(), type, keys, args);
    return batch
        .executeAsync()
        .toCompletableFuture()
        .thenApply(
            result -> {
              Object reply = result.getResponses().get(0);
              if (result.getSyncedSlaves() < syncReplicas
                  && failUnsyncedCompletion
                  && s == RecordScript.COMPLETE
                  && Long.valueOf(1).equals(reply)) {
                throw OutcomeNotRecordedException.unconfirmed(
                    "the outcome of record "
                        + RecordKey.redact(name)
                        + " is on the primary but reached "
                        + result.getSyncedSlaves()
                        + " of "
                        + syncReplicas
                        + " replicas within "
                        + syncTimeout
                        + " (on-sync-timeout fail): a failover now could lose it, so the outcome is"
                        + " ambiguous; a repeat on this primary replays it");
              }
              if (result.getSyncedSlaves() < syncReplicas) {
                log.warn(
                    "{} of record {} reached {} of {} replicas within {}; a failover now could lose"
                        + " it",
                    s,
                    RecordKey.redact(name),
                    result.getSyncedSlaves(),
                    syncReplicas,
                    syncTimeout);
              }
              return (R) reply;
            });
  }

  private CompletableFuture<String> load(RecordScript s) {
    return script
        .scriptLoadAsync(s.source())
        .toCompletableFuture()
        .thenApply(
            sha -> {
              if (!s.sha().equalsIgnoreCase(sha)) {
                throw new IllegalStateException(
                    "Redis answered SCRIPT LOAD of "
                        + s
                        + " with digest "
                        + sha
                        + " instead of "
                        + s.sha());
              }
              return sha;
            });
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static void logReload(RecordScript s) {
    log.info(
        "Redis no longer knows script {} (NOSCRIPT: restart, failover or SCRIPT FLUSH); loading it"
            + " again",
        s);
  }

  /**
   * Waits for {@code future} as Redisson's blocking methods do: an interrupt cancels it, sets the
   * thread's flag again and fails with the {@link InterruptedException} as the cause; a failure is
   * thrown as the exception it completed with.
   */
  public static <R> R await(CompletableFuture<R> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new RedisException(e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new RedisException("Unexpected exception while processing command", cause);
    }
  }

  /** Whether {@code e} (or a cause) is Redis' answer that it does not know the script. */
  public static boolean isNoScript(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof RedisNoScriptException) {
        return true;
      }
      String m = t.getMessage();
      if (m != null
          && (m.startsWith("NOSCRIPT")
              || m.contains(" NOSCRIPT ")
              || m.contains("NOSCRIPT No matching"))) {
        return true;
      }
    }
    return false;
  }
}
