package io.shardwise.spring.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.NearCacheStats;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The near cache's meters ({@link ShardwiseMetrics#watch}): read from the client's {@link
 * NearCacheStats} when the registry is scraped, so that a get served from the near cache costs no
 * meter call, only the near cache's own counter increment.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@code shardwise.near.cache.gets}</td><td>counter</td><td>result (hit, miss)</td>
 *       <td>gets the near cache answered, and those it sent on to a server</td></tr>
 *   <tr><td>{@code shardwise.near.cache.evictions}</td><td>counter</td><td>cause (size,
 *       expired)</td><td>entries removed to keep within max-bytes or max-entries, or because they
 *       reached max-staleness</td></tr>
 *   <tr><td>{@code shardwise.near.cache.refreshes}</td><td>counter</td><td></td><td>keys read
 *       again in the background for entries served again in the second half of their life
 *       (refresh-ahead)</td></tr>
 *   <tr><td>{@code shardwise.near.cache.invalidations}</td><td>counter</td><td>cause (write,
 *       server, node, change, tracking, flush)</td><td>entries dropped: this client wrote the key,
 *       the server's notice (Redis) or a refresh that found the key gone, a node ejected,
 *       readmitted or retired, a server-list or placement change, a tracked connection lost or
 *       replaced, a server flushed</td></tr>
 *   <tr><td>{@code shardwise.near.cache.drops}</td><td>counter</td><td>cause (node, change,
 *       tracking, flush)</td><td>events that dropped every entry</td></tr>
 *   <tr><td>{@code shardwise.near.cache.entries}</td><td>gauge</td><td></td><td>entries held
 *       now</td></tr>
 *   <tr><td>{@code shardwise.near.cache.size}</td><td>gauge</td><td></td><td>bytes the entries
 *       weigh now (with max-bytes; not registered with max-entries, which weighs nothing)</td></tr>
 *   <tr><td>{@code shardwise.node.near.cache.tracked}</td><td>gauge</td><td>node</td><td>1 while
 *       the server tracks the near cache's reads (Redis {@code CLIENT TRACKING} on the connection
 *       in use), else 0 (always 0 with memcached: bounded staleness)</td></tr>
 * </table>
 */
final class NearCacheMeters {

  static final List<String> INVALIDATION_CAUSES = List.of("write", "server", "node", "change", "tracking", "flush");

  private NearCacheMeters() {}

  /** Registers {@code client}'s near-cache meters, if it has a near cache. */
  static void register(MeterRegistry registry, Tags tags, AsyncCacheClient<?> client) {
    NearCacheStats first = client.nearCacheStats();
    if (first == null || !first.enabled()) {
      return;
    }
    counter(registry, tags.and("result", "hit"), client, "shardwise.near.cache.gets", "Gets the near cache answered or sent on", NearCacheStats::hits);
    counter(registry, tags.and("result", "miss"), client, "shardwise.near.cache.gets", "Gets the near cache answered or sent on", NearCacheStats::misses);
    String evicted = "Near-cache entries removed for its bound or for max-staleness";
    counter(registry, tags.and("cause", "size"), client, "shardwise.near.cache.evictions", evicted, NearCacheStats::evictions);
    counter(registry, tags.and("cause", "expired"), client, "shardwise.near.cache.evictions", evicted, NearCacheStats::expiries);
    counter(registry, tags, client, "shardwise.near.cache.refreshes", "Keys read again in the background before their near-cache entry expires", NearCacheStats::refreshes);
    for (String cause : INVALIDATION_CAUSES) {
      counter(registry, tags.and("cause", cause), client, "shardwise.near.cache.invalidations", "Near-cache entries dropped, by cause", s -> s.invalidations(cause));
      if (!cause.equals("write") && !cause.equals("server")) {
        counter(registry, tags.and("cause", cause), client, "shardwise.near.cache.drops", "Events that dropped every near-cache entry", s -> s.dropAlls().getOrDefault(cause, 0L));
      }
    }
    Gauge.builder("shardwise.near.cache.entries", client, c -> stats(c).entries())
        .description("Entries the near cache holds")
        .tags(tags)
        .register(registry);
    if (first.bytes() >= 0) {
      Gauge.builder("shardwise.near.cache.size", client, c -> stats(c).bytes())
          .description("Bytes the near cache's entries weigh")
          .baseUnit("bytes")
          .tags(tags)
          .register(registry);
    }
  }

  private static void counter(
      MeterRegistry registry, Tags tags, AsyncCacheClient<?> client, String name, String description, ToDoubleFunction<NearCacheStats> count) {
    FunctionCounter.builder(name, client, c -> count.applyAsDouble(stats(c)))
        .description(description)
        .tags(tags)
        .register(registry);
  }

  private static NearCacheStats stats(AsyncCacheClient<?> client) {
    NearCacheStats s = client.nearCacheStats();
    return s == null ? NearCacheStats.OFF : s;
  }
}
