package dev.idempotent.micrometer;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The log lines written while it is open, as Logback received them (with their MDC). */
final class LogLines implements AutoCloseable {
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  LogLines() {
    appender.start();
    root.addAppender(appender);
  }

  List<ILoggingEvent> lines() {
    return List.copyOf(appender.list);
  }

  /** Each line as written, with its arguments and its exception's text. */
  List<String> texts() {
    return lines().stream()
        .map(
            e ->
                e.getFormattedMessage()
                    + (e.getThrowableProxy() == null
                        ? ""
                        : " " + e.getThrowableProxy().getMessage())
                    + " "
                    + e.getMDCPropertyMap())
        .toList();
  }

  @Override
  public void close() {
    root.detachAppender(appender);
  }
}
