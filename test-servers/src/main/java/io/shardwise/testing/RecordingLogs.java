package io.shardwise.testing;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * An SLF4J binding for tests: records INFO, WARN and ERROR events, and DEBUG ones while {@link
 * #captureDebug(boolean)} is on, with the text of any throwable and its causes, so that tests can
 * count what a failure costs in log lines and look for secrets in them; prints WARN and ERROR to
 * stderr.
 *
 * <p>Not registered here: a test module that wants it names {@code
 * io.shardwise.testing.RecordingLogs$Provider} in its own {@code
 * META-INF/services/org.slf4j.spi.SLF4JServiceProvider} (modules that log through another binding,
 * such as Spring Boot's, are not affected).
 */
public final class RecordingLogs {

  /** A recorded log event; {@code text} holds the message and every throwable in the chain. */
  public record Event(Level level, String logger, String text) {
    @Override
    public String toString() {
      return level + " " + logger + ": " + text;
    }
  }

  private static final ConcurrentLinkedQueue<Event> EVENTS = new ConcurrentLinkedQueue<>();
  private static final int MAX_EVENTS = 200_000;
  private static volatile boolean debug;

  private RecordingLogs() {}

  /** Forgets every event recorded so far. */
  public static void clear() {
    EVENTS.clear();
  }

  /**
   * Records DEBUG events too (for loggers that check their level after this call; Lettuce checks
   * per connection, so turn it on before creating the backend).
   */
  public static void captureDebug(boolean on) {
    debug = on;
  }

  /** Every event recorded since the last {@link #clear()}. */
  public static List<Event> all() {
    return List.copyOf(EVENTS);
  }

  /** The events whose logger name starts with {@code prefix}, at every recorded level. */
  public static List<Event> events(String prefix) {
    return events(prefix, Level.TRACE);
  }

  /** The events whose logger name starts with {@code prefix}, at {@code level} or above. */
  public static List<Event> events(String prefix, Level level) {
    return EVENTS.stream()
        .filter(e -> e.logger().startsWith(prefix) && e.level().toInt() >= level.toInt())
        .collect(Collectors.toList());
  }

  static void record(Event event) {
    if (EVENTS.size() < MAX_EVENTS) {
      EVENTS.add(event);
    }
    if (event.level().toInt() >= Level.WARN.toInt()) {
      System.err.println("[log] " + event);
    }
  }

  /** Every message of a throwable and its causes and suppressed exceptions. */
  public static String describe(Throwable t) {
    StringBuilder text = new StringBuilder();
    java.util.Set<Throwable> seen =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    java.util.ArrayDeque<Throwable> todo = new java.util.ArrayDeque<>();
    todo.add(t);
    while (!todo.isEmpty()) {
      Throwable c = todo.poll();
      if (!seen.add(c)) {
        continue;
      }
      text.append(" [").append(c).append(']');
      if (c.getCause() != null) {
        todo.add(c.getCause());
      }
      java.util.Collections.addAll(todo, c.getSuppressed());
    }
    return text.toString();
  }

  /** Registered in {@code META-INF/services/org.slf4j.spi.SLF4JServiceProvider}. */
  public static final class Provider implements SLF4JServiceProvider {
    private final ILoggerFactory loggers = RecordingLogger::new;
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

    @Override
    public ILoggerFactory getLoggerFactory() {
      return loggers;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
      return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
      return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
      return "2.0.99";
    }

    @Override
    public void initialize() {}
  }

  private static final class RecordingLogger extends LegacyAbstractLogger implements Logger {
    private static final long serialVersionUID = 1L;

    RecordingLogger(String name) {
      this.name = name;
    }

    @Override
    public boolean isTraceEnabled() {
      return false;
    }

    @Override
    public boolean isDebugEnabled() {
      return debug;
    }

    @Override
    public boolean isInfoEnabled() {
      return true;
    }

    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return true;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable) {
      if (level.toInt() < Level.DEBUG.toInt() || (level == Level.DEBUG && !debug)) {
        return;
      }
      String message = MessageFormatter.basicArrayFormat(pattern, arguments);
      if (throwable != null) {
        message += describe(throwable);
      }
      record(new Event(level, getName(), message));
    }
  }
}
