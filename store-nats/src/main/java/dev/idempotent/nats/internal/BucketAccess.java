package dev.idempotent.nats.internal;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The three things the store asks of the bucket, each one request on the connection and each
 * answered by a future that never blocks the caller: the latest entry of a key (JetStream's message
 * get, which the stream's leader answers, so a read sees every acknowledged write), a write
 * conditional on the key's revision (a publish with {@code Nats-Expected-Last-Subject-Sequence}, as
 * the key-value {@code create} and {@code update} send it), and an unconditional write. Every
 * future fails after the store's timeout.
 */
public final class BucketAccess {
  /** The header a conditional write carries; waiters read it off the messages they receive. */
  public static final String EXPECTED_REVISION = "Nats-Expected-Last-Subject-Sequence";

  /** JetStream's error code for a conditional write whose expected revision was not the key's. */
  static final int WRONG_LAST_SEQUENCE = 10071;

  private static final String OPERATION = "KV-Operation";

  /** JetStream's error code for a read of a subject or sequence that holds no message. */
  static final int NO_MESSAGE_FOUND = 10037;

  private final Connection connection;
  private final JetStream jetStream;
  private final KeyNames names;
  private final String leaderGet;
  private final Duration timeout;

  public BucketAccess(Connection connection, KeyNames names, Duration timeout) throws IOException {
    this.connection = connection;
    this.jetStream = connection.jetStream();
    this.names = names;
    this.leaderGet = "$JS.API.STREAM.MSG.GET." + names.stream();
    this.timeout = timeout;
  }

  public KeyNames names() {
    return names;
  }

  public Connection connection() {
    return connection;
  }

  public Duration timeout() {
    return timeout;
  }

  /** The latest entry of {@code subject}, or {@code null} when the stream holds none. */
  public CompletableFuture<Entry> latest(String subject) {
    return get("{\"last_by_subj\":\"" + subject + "\"}");
  }

  /** The entry at stream sequence {@code revision}, or {@code null}. */
  public CompletableFuture<Entry> at(long revision) {
    return get("{\"seq\":" + revision + "}");
  }

  private CompletableFuture<Entry> get(String request) {
    CompletableFuture<Message> reply;
    try {
      reply =
          connection.requestWithTimeout(
              leaderGet, null, request.getBytes(StandardCharsets.US_ASCII), timeout);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return within(reply).thenApply(m -> entry(m, names.stream()));
  }

  private static Entry entry(Message m, String stream) {
    if (m.isStatusMessage()) {
      throw new IllegalStateException(
          "JetStream answered the read with " + m.getStatus().getMessageWithCode());
    }
    MessageInfo info = new MessageInfo(m, stream, false);
    if (info.hasError()) {
      if (info.getApiErrorCode() == NO_MESSAGE_FOUND) {
        return null;
      }
      throw new IllegalStateException(
          "JetStream answered the read with error "
              + info.getApiErrorCode()
              + ": "
              + info.getDescription());
    }
    Headers h = info.getHeaders();
    String op = h == null ? null : h.getFirst(OPERATION);
    boolean deleted = "DEL".equals(op) || "PURGE".equals(op);
    byte[] data = info.getData();
    return new Entry(
        info.getSeq(),
        info.getTime().toInstant().toEpochMilli(),
        deleted,
        data == null ? new byte[0] : data);
  }

  /**
   * Writes {@code value} to {@code subject} if the key's latest revision is {@code
   * expectedRevision} (0: the key has no entry at all). Completes with the new revision, or with
   * {@code -1} when the key's revision was another (nothing was written).
   */
  public CompletableFuture<Long> writeIf(String subject, byte[] value, long expectedRevision) {
    Headers h = new Headers();
    h.put(EXPECTED_REVISION, Long.toString(expectedRevision));
    return publish(subject, h, value, true);
  }

  /** Writes a delete marker on {@code subject} if the key's latest revision is {@code revision}. */
  public CompletableFuture<Long> deleteIf(String subject, long revision) {
    Headers h = new Headers();
    h.put(EXPECTED_REVISION, Long.toString(revision));
    h.put(OPERATION, "DEL");
    return publish(subject, h, new byte[0], true);
  }

  /** Writes {@code value} to {@code subject} whatever is there; completes with its revision. */
  public CompletableFuture<Long> write(String subject, byte[] value) {
    return publish(subject, null, value, false);
  }

  private CompletableFuture<Long> publish(
      String subject, Headers headers, byte[] value, boolean conditional) {
    CompletableFuture<PublishAck> ack;
    try {
      ack =
          jetStream.publishAsync(
              NatsMessage.builder().subject(subject).headers(headers).data(value).build());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return within(ack)
        .handle(
            (a, e) -> {
              if (e == null) {
                return a.getSeqno();
              }
              Throwable cause = unwrap(e);
              if (conditional && apiError(cause) == WRONG_LAST_SEQUENCE) {
                return -1L;
              }
              throw cause instanceof RuntimeException r ? r : new CompletionException(cause);
            });
  }

  private <T> CompletableFuture<T> within(CompletableFuture<T> f) {
    // a copy, so that the timeout does not complete the client's own future
    return f.thenApply(v -> v).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The JetStream error code of {@code e} or of a cause of it, or 0. */
  public static int apiError(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof JetStreamApiException j) {
        return j.getApiErrorCode();
      }
    }
    return 0;
  }

  /** The cause inside the wrappers futures add. */
  public static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException
            || t instanceof java.util.concurrent.ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
