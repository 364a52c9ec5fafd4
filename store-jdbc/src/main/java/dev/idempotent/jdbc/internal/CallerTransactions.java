package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.ConnectionProvider;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Completions with a {@link ConnectionProvider}: on the caller's connection when it gives one, on
 * the store's own otherwise, and never the one after the other. A completion that fails in the
 * caller's transaction, or finds the claim no longer the caller's, fails the call ({@link
 * OutcomeNotRecordedException#failingTheCall}) and is refused later on any connection; one that
 * failed on the store's own connection stays on the store's own connections. Only failures are
 * remembered, at most {@value #MAX_REMEMBERED_FAILURES} (the oldest are forgotten first).
 */
public final class CallerTransactions {
  private static final int MAX_REMEMBERED_FAILURES = 10_000;

  /** Where a completion that failed belongs. */
  private enum Belongs {
    CALLER_TRANSACTION,
    OWN_CONNECTION
  }

  private final ConnectionProvider provider;
  private final StoreConnections connections;

  private final Map<String, Belongs> failed =
      Collections.synchronizedMap(
          new LinkedHashMap<String, Belongs>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Belongs> eldest) {
              return size() > MAX_REMEMBERED_FAILURES;
            }
          });

  public CallerTransactions(ConnectionProvider provider, StoreConnections connections) {
    this.provider = provider;
    this.connections = connections;
  }

  /** Runs the completion {@code work} of {@code owner}'s claim where it belongs. */
  public boolean complete(RecordKey key, String owner, StoreConnections.Work<Boolean> work) {
    Belongs before = failed.get(owner);
    if (before == Belongs.OWN_CONNECTION) {
      return onOwnConnection(key, owner, work);
    }
    if (before == Belongs.CALLER_TRANSACTION) {
      throw OutcomeNotRecordedException.failingTheCall(
          "the outcome of "
              + key
              + " belongs to the caller's transaction, where recording it already failed; it is"
              + " never recorded on another connection",
          null);
    }
    Connection c;
    try {
      c = provider.connection();
    } catch (SQLException | RuntimeException e) {
      failed.put(owner, Belongs.CALLER_TRANSACTION);
      throw notRecorded(key, "getting the caller's connection failed", e);
    }
    if (c == null) {
      return onOwnConnection(key, owner, work);
    }
    Exception failure = null;
    boolean done = false;
    try {
      done = work.apply(c, connections.queryTimeoutSeconds());
    } catch (SQLException | RuntimeException e) {
      failure = e;
    } finally {
      try {
        provider.done(c);
      } catch (SQLException | RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null || !done) {
      failed.put(owner, Belongs.CALLER_TRANSACTION);
      throw notRecorded(
          key,
          failure != null
              ? "the update failed"
              : "the claim is no longer this call's (its lease ended and another caller took the"
                  + " key over, or the transaction's snapshot is older than the claim)",
          failure);
    }
    return true;
  }

  private boolean onOwnConnection(
      RecordKey key, String owner, StoreConnections.Work<Boolean> work) {
    try {
      boolean done = connections.run("complete", key, work);
      failed.remove(owner);
      return done;
    } catch (OutcomeNotRecordedException e) {
      failed.remove(owner);
      throw e;
    } catch (RuntimeException e) {
      failed.put(owner, Belongs.OWN_CONNECTION);
      throw e;
    }
  }

  private OutcomeNotRecordedException notRecorded(RecordKey key, String why, Exception failure) {
    Throwable cause;
    String detail;
    if (failure instanceof SQLException s) {
      cause = connections.failure("complete (in the caller's transaction)", key, s);
      detail =
          " ("
              + (s.getSQLState() == null ? "" : "[" + s.getSQLState() + "] ")
              + RedactedSqlErrors.message(s.getMessage(), key)
              + ")";
    } else if (failure instanceof OutcomeNotRecordedException n) {
      cause = n;
      detail = " (" + n.getMessage() + ")";
    } else {
      cause = failure == null ? null : RedactedSqlErrors.copyOfAny(failure, key);
      detail = cause == null ? "" : " (" + cause.getMessage() + ")";
    }
    return OutcomeNotRecordedException.failingTheCall(
        "the outcome of "
            + key
            + " was not recorded in the caller's transaction: "
            + why
            + detail
            + "; roll the transaction back: the outcome is never recorded on another"
            + " connection, and the claim frees itself when its lease ends",
        cause);
  }
}
