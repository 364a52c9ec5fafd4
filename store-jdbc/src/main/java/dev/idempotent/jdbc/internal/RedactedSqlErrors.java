package dev.idempotent.jdbc.internal;

import dev.idempotent.spi.RecordKey;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLNonTransientException;
import java.sql.SQLRecoverableException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;

/**
 * Copies of driver errors that carry no bound value. A driver's message can quote what was bound:
 * PostgreSQL's {@code Detail: Key (scope, idem_key)=(...) already exists}, MariaDB's {@code
 * Duplicate entry '...'}, H2's {@code Value too long for column ...: "'...'"}, the statement and
 * its parameters where a driver is set to dump them. A copy keeps the {@code java.sql} kind of
 * exception, the SQLState, the vendor code and the stack trace, and of the message only its first
 * line, with every quoted or {@code =(...)} value replaced by {@code …} and the key itself, should
 * it still appear, by its redacted form. Causes, chained and suppressed exceptions are copied the
 * same way; a cause that is not an {@link SQLException} becomes one that names its class.
 */
public final class RedactedSqlErrors {
  private static final int MAX_MESSAGE = 300;
  private static final int MAX_DEPTH = 8;
  private static final int MIN_KEY_TO_REPLACE = 4;

  private RedactedSqlErrors() {}

  /**
   * A copy of {@code e} and everything it links to, without bound values; {@code key} may be {@code
   * null}.
   */
  public static SQLException copyOf(SQLException e, RecordKey key) {
    return copy(e, key, 0);
  }

  /**
   * {@link #copyOf} for any throwable: an {@link SQLException} that names the class of {@code t}.
   */
  public static SQLException copyOfAny(Throwable t, RecordKey key) {
    return copyOfAny(t, key, 0);
  }

  /** The first line of {@code message}, without quoted values or the key. */
  public static String message(String message, RecordKey key) {
    if (message == null) {
      return "(no message)";
    }
    int end = message.length();
    for (int i = 0; i < message.length(); i++) {
      char ch = message.charAt(i);
      if (ch == '\n' || ch == '\r') {
        end = i;
        break;
      }
    }
    String line = withoutValues(message.substring(0, end).strip());
    if (key != null && key.key().length() >= MIN_KEY_TO_REPLACE) {
      line = line.replace(key.key(), key.redactedKey());
    }
    line = JdbcUrls.withoutPassword(line);
    return line.length() <= MAX_MESSAGE ? line : line.substring(0, MAX_MESSAGE) + "…";
  }

  /**
   * Replaces the inside of every '...', "..." and =(...) by an ellipsis; an unclosed one runs to
   * the end. A quote right after a letter or digit is an apostrophe, not the start of a value.
   */
  static String withoutValues(String line) {
    StringBuilder out = new StringBuilder(line.length());
    int i = 0;
    while (i < line.length()) {
      char ch = line.charAt(i);
      boolean wordInside =
          i > 0 && Character.isLetterOrDigit(line.charAt(i - 1)); // an apostrophe: can't
      char close =
          (ch == '\'' || ch == '"') && !wordInside
              ? ch
              : ch == '(' && i > 0 && line.charAt(i - 1) == '=' ? ')' : 0;
      if (close == 0) {
        out.append(ch);
        i++;
        continue;
      }
      out.append(ch).append('…');
      i++;
      while (i < line.length()) {
        char c = line.charAt(i);
        if (c == '\\' && close != ')') {
          i += 2;
        } else if (c == close
            && close != ')'
            && i + 1 < line.length()
            && line.charAt(i + 1) == close) {
          i += 2; // a doubled quote inside the value
        } else if (c == close) {
          break;
        } else {
          i++;
        }
      }
      if (i < line.length()) {
        out.append(close);
        i++;
      }
    }
    return out.toString();
  }

  private static SQLException copy(SQLException e, RecordKey key, int depth) {
    String text = message(e.getMessage(), key) + " (" + e.getClass().getName() + ")";
    SQLException copy = sameKind(e, text);
    copy.setStackTrace(e.getStackTrace());
    if (depth < MAX_DEPTH) {
      Throwable cause = e.getCause();
      if (cause != null && cause != e) {
        copy.initCause(copyOfAny(cause, key, depth + 1));
      }
      SQLException next = e.getNextException();
      if (next != null && next != e && next != cause) {
        copy.setNextException(copy(next, key, depth + 1));
      }
      for (Throwable s : e.getSuppressed()) {
        copy.addSuppressed(copyOfAny(s, key, depth + 1));
      }
    }
    return copy;
  }

  private static SQLException copyOfAny(Throwable t, RecordKey key, int depth) {
    if (t instanceof SQLException s) {
      return copy(s, key, depth);
    }
    SQLException copy =
        new SQLException(message(t.getMessage(), key) + " (" + t.getClass().getName() + ")");
    copy.setStackTrace(t.getStackTrace());
    if (depth < MAX_DEPTH && t.getCause() != null && t.getCause() != t) {
      copy.initCause(copyOfAny(t.getCause(), key, depth + 1));
    }
    return copy;
  }

  private static SQLException sameKind(SQLException e, String m) {
    String s = e.getSQLState();
    int c = e.getErrorCode();
    if (e instanceof SQLTimeoutException) {
      return new SQLTimeoutException(m, s, c);
    } else if (e instanceof SQLTransactionRollbackException) {
      return new SQLTransactionRollbackException(m, s, c);
    } else if (e instanceof SQLTransientConnectionException) {
      return new SQLTransientConnectionException(m, s, c);
    } else if (e instanceof SQLTransientException) {
      return new SQLTransientException(m, s, c);
    } else if (e instanceof SQLNonTransientConnectionException) {
      return new SQLNonTransientConnectionException(m, s, c);
    } else if (e instanceof SQLIntegrityConstraintViolationException) {
      return new SQLIntegrityConstraintViolationException(m, s, c);
    } else if (e instanceof SQLDataException) {
      return new SQLDataException(m, s, c);
    } else if (e instanceof SQLSyntaxErrorException) {
      return new SQLSyntaxErrorException(m, s, c);
    } else if (e instanceof SQLFeatureNotSupportedException) {
      return new SQLFeatureNotSupportedException(m, s, c);
    } else if (e instanceof SQLInvalidAuthorizationSpecException) {
      return new SQLInvalidAuthorizationSpecException(m, s, c);
    } else if (e instanceof SQLNonTransientException) {
      return new SQLNonTransientException(m, s, c);
    } else if (e instanceof SQLRecoverableException) {
      return new SQLRecoverableException(m, s, c);
    }
    return new SQLException(m, s, c);
  }
}
