package io.shardwise.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.shardwise.client.CachedValue;
import io.shardwise.spi.KeyRules;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The largest value the Redis servers of a backend accept: Redis reads each argument of a command
 * as one bulk string and answers a bulk longer than its {@code proto-max-bulk-len} (default 512 MiB,
 * at least 1 MiB) with {@code Protocol error: invalid bulk length} and closes the connection
 * (Redis 7 {@code networking.c}, {@code processMultibulkBuffer}). A value is one bulk, so it may be
 * exactly {@code proto-max-bulk-len} bytes long.
 *
 * <p>Each server's setting is read with {@code CONFIG GET proto-max-bulk-len} on a short-lived
 * connection of its own (with the backend's credentials and TLS) after the node's connection
 * starts. A server that cannot be read (down at connect, {@code CONFIG} not allowed to the user,
 * renamed or disabled) counts with Redis' default. Values are checked against the smallest limit of
 * the backend's servers, so an accepted value fits whichever server the key routes or fails over to.
 */
final class BulkLengthLimit {

  /** The settings of one server: its {@code proto-max-bulk-len} and where it was read. */
  record Setting(long maxBulkLength, String source) {
    static final Setting DEFAULT = new Setting(RedisBackend.MAX_VALUE_BYTES, "Redis' default");
  }

  private final Map<Object, Setting> servers = new ConcurrentHashMap<>();
  /** {@link #smallest()}, kept up to date so that a check does not walk the servers. */
  private volatile Setting smallest = Setting.DEFAULT;

  void add(Object server) {
    servers.putIfAbsent(server, Setting.DEFAULT);
    update();
  }

  void remove(Object server) {
    servers.remove(server);
    update();
  }

  /**
   * Reads the setting of the server at {@code uri} with {@code client}, without blocking the
   * caller; keeps the default if it cannot.
   */
  CompletableFuture<Void> read(Object server, RedisClient client, RedisURI uri, Duration timeout) {
    return client
        .connectAsync(StringCodec.UTF8, uri)
        .thenCompose(
            connection ->
                connection
                    .async()
                    .configGet("proto-max-bulk-len")
                    .toCompletableFuture()
                    .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .handle((reply, failure) -> failure == null ? reply : null)
                    // Closed before the read completes: nothing of it is left once it is done (a
                    // server lost later is then seen by the node's own connection only).
                    .thenCompose(reply -> connection.closeAsync().handle((closed, f) -> reply)))
        .whenComplete(
            (reply, failure) -> {
              if (failure != null || reply == null) {
                return;
              }
              String value = reply.get("proto-max-bulk-len");
              try {
                long parsed = Long.parseLong(value);
                if (parsed > 0) {
                  servers.replace(
                      server, Setting.DEFAULT, new Setting(parsed, uri.getHost() + ":" + uri.getPort()));
                  update();
                }
              } catch (NumberFormatException ignored) {
                // not a number: keep the default
              }
            })
        .handle((reply, failure) -> (Void) null)
        .toCompletableFuture();
  }

  /** The setting that decides: the smallest of the backend's servers. */
  Setting smallest() {
    return smallest;
  }

  private synchronized void update() {
    Setting smallest = null;
    for (Setting s : servers.values()) {
      if (smallest == null || s.maxBulkLength() < smallest.maxBulkLength()) {
        smallest = s;
      }
    }
    this.smallest = smallest == null ? Setting.DEFAULT : smallest;
  }

  void check(String key, CachedValue value) {
    Setting s = smallest();
    if (value.length() > s.maxBulkLength()) {
      throw new IllegalArgumentException(
          "Redis accepts values of at most "
              + s.maxBulkLength()
              + " bytes (proto-max-bulk-len of "
              + s.source()
              + "); got "
              + value.length()
              + " for "
              + KeyRules.shorten(key));
    }
  }
}
