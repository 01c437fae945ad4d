package io.shardwise.core.sources;

import io.shardwise.client.AsyncCacheClient;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Reads a {@link ServerListSource} at a fixed interval on one daemon thread of its own and hands
 * every list to a {@link ServerListUpdater}, waiting for each change to be in force before the next
 * read, so changes are applied one at a time. A read that fails keeps the list in force (see {@link
 * ServerListUpdater} for what is logged). {@link #close()} stops the thread.
 *
 * <pre>{@code
 * AsyncCacheClient<Object> cache = ...;
 * ServerListWatcher watcher =
 *     ServerListWatcher.start(cache, ServersDns.of("memcached.cache.svc:11211"),
 *         ServerListWatcher.DEFAULT_DNS_INTERVAL);
 * ...
 * watcher.close(); // before or after the client
 * }</pre>
 *
 * <p>A client built from {@code shardwise.servers-file} or {@code shardwise.servers-dns} starts
 * its watcher itself and stops it when it closes.
 */
public final class ServerListWatcher implements AutoCloseable {

  /**
   * Default refresh of a servers file: 1 s. Reading a file of a few kilobytes costs microseconds,
   * and a change is applied within two refreshes (the content must be the same on two reads).
   */
  public static final Duration DEFAULT_FILE_INTERVAL = Duration.ofSeconds(1);

  /**
   * Default refresh of a DNS name: 30 s, the JVM's own positive cache time (OpenJDK's {@code
   * networkaddress.cache.ttl} default without a security manager), so a shorter refresh would
   * mostly see the cached answer. Peers: Envoy's {@code STRICT_DNS} clusters refresh every 5 s
   * ({@code dns_refresh_rate}, default 5000 ms); the ElastiCache cluster client (spymemcached with
   * auto discovery) polls the configuration endpoint once a minute.
   */
  public static final Duration DEFAULT_DNS_INTERVAL = Duration.ofSeconds(30);

  private final ServerListSource source;
  private final ServerListUpdater updater;
  private final ScheduledThreadPoolExecutor scheduler;

  private ServerListWatcher(ServerListSource source, ServerListUpdater updater, Duration interval) {
    this.source = Objects.requireNonNull(source, "source");
    this.updater = Objects.requireNonNull(updater, "updater");
    Objects.requireNonNull(interval, "interval");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be > 0 but was " + interval);
    }
    this.scheduler =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread t = new Thread(task, "shardwise-servers " + source.describe());
              t.setDaemon(true);
              return t;
            });
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    long nanos = interval.toNanos();
    scheduler.scheduleWithFixedDelay(this::refresh, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /** Watches {@code source} for {@code client}, first read one {@code interval} from now. */
  public static ServerListWatcher start(
      AsyncCacheClient<?> client, ServerListSource source, Duration interval) {
    return start(new ServerListUpdater(client), source, interval);
  }

  /** Watches {@code source} and hands its lists to {@code updater}. */
  public static ServerListWatcher start(
      ServerListUpdater updater, ServerListSource source, Duration interval) {
    return new ServerListWatcher(source, updater, interval);
  }

  /** Reads the source once and applies what it holds; runs on the watcher's thread. */
  private void refresh() {
    try {
      var read = source.read();
      if (read.isPresent()) {
        updater.offer(source.describe(), read.get()).get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing
    } catch (ExecutionException e) {
      updater.refuse(source.describe(), String.valueOf(e.getCause()));
    } catch (Exception e) {
      updater.refuse(source.describe(), e.getMessage() != null ? e.getMessage() : e.toString());
    }
  }

  public ServerListSource source() {
    return source;
  }

  public ServerListUpdater updater() {
    return updater;
  }

  /** Stops the thread; a read or change under way is interrupted. Idempotent. */
  @Override
  public void close() {
    scheduler.shutdownNow();
  }

  /** Whether the thread has ended since {@link #close()}, waiting at most {@code timeout}. */
  public boolean awaitClosed(Duration timeout) throws InterruptedException {
    return scheduler.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public String toString() {
    return "ServerListWatcher[" + source.describe() + "]";
  }
}
