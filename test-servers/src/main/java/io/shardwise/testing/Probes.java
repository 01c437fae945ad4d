package io.shardwise.testing;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.OptionalLong;

/** Readiness checks that send a real request. */
final class Probes {
  static final Duration PROBE_TIMEOUT = Duration.ofMillis(1000);

  private Probes() {}

  /**
   * memcached {@code version} or Redis {@code PING} got a protocol answer. An error reply counts as
   * an answer (a server started with {@code --requirepass} says {@code NOAUTH}), except Redis
   * {@code LOADING} and {@code BUSY}, which mean it is not serving yet.
   */
  static boolean answers(ServerKind kind, String host, int port, Duration timeout) {
    try {
      if (kind == ServerKind.MEMCACHED) {
        return !new MemcachedTextClient(host, port, timeout).version().isEmpty();
      }
      return "PONG".equals(new RespClient(host, port, timeout).ping());
    } catch (ErrorReplyException e) {
      return !(e.reply().startsWith("LOADING") || e.reply().startsWith("BUSY"));
    } catch (UncheckedIOException | ClassCastException e) {
      return false;
    }
  }

  /** The pid the server reports about itself ({@code stats pid}, {@code INFO server}). */
  static OptionalLong reportedPid(ServerKind kind, String host, int port, Duration timeout) {
    try {
      String pid =
          kind == ServerKind.MEMCACHED
              ? new MemcachedTextClient(host, port, timeout).stats().get("pid")
              : new RespClient(host, port, timeout).info("server").get("process_id");
      return pid == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(pid.trim()));
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }
}
