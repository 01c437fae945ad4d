package io.shardwise.memcached;

import net.spy.memcached.compat.log.AbstractLogger;
import net.spy.memcached.compat.log.Level;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A spymemcached logger that writes every message, whatever its level, at DEBUG to the SLF4J
 * logger of the same name. Given only to the spymemcached objects this backend creates (its shared
 * connection, its nodes, its SASL threads), so that their per-attempt chatter ("Closing, and
 * reopening", "Reconnecting", stack traces of refused connections) stays out of the application's
 * logs, while other users of spymemcached in the same JVM keep their logging. The backend logs the
 * transitions that matter itself, once each.
 */
final class SpymemcachedDebugLogger extends AbstractLogger {

  private final Logger log;

  SpymemcachedDebugLogger(Class<?> owner) {
    super(owner.getName());
    this.log = LoggerFactory.getLogger(owner);
  }

  @Override
  public boolean isTraceEnabled() {
    return log.isTraceEnabled();
  }

  @Override
  public boolean isDebugEnabled() {
    return log.isDebugEnabled();
  }

  @Override
  public boolean isInfoEnabled() {
    return log.isDebugEnabled();
  }

  @Override
  public void log(Level level, Object message, Throwable e) {
    if (level == Level.TRACE) {
      if (log.isTraceEnabled()) {
        log.trace(String.valueOf(message), e);
      }
    } else if (log.isDebugEnabled()) {
      log.debug(level == Level.DEBUG ? String.valueOf(message) : level + ": " + message, e);
    }
  }
}
