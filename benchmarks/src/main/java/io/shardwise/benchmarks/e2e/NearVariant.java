package io.shardwise.benchmarks.e2e;

import io.shardwise.core.NearCacheOptions;

/**
 * One near cache to measure ({@code --near}): {@code hot} is {@link NearCacheOptions#defaults()}
 * (64 MiB, hot keys only, the default threshold), {@code hot:N} the same with a threshold of
 * {@code N} recent reads, {@code all} every key read admitted; any of them followed by {@code /D}
 * (a duration such as {@code 10s}) sets {@link NearCacheOptions#maxStaleness()}, which bounds how
 * long a key's entry serves between two server reads: Redis's default without it, and {@link
 * #MEMCACHED_STALENESS} with memcached, which has no default; any of them after {@code norefresh:}
 * turns {@link NearCacheOptions#refreshAhead()} off.
 *
 * @param label the contender's name in the tables
 * @param options the near cache's settings
 */
record NearVariant(String label, NearCacheOptions options) {

  /** The staleness bound of a memcached variant without {@code /D}: 1 s. */
  static final java.time.Duration MEMCACHED_STALENESS = java.time.Duration.ofSeconds(1);

  /** {@link #options()}, with {@link #MEMCACHED_STALENESS} unless a bound was named. */
  NearCacheOptions forMemcached() {
    return options.maxStaleness() == null ? options.withMaxStaleness(MEMCACHED_STALENESS) : options;
  }

  /** The variant {@code spec} names. */
  static NearVariant of(String spec) {
    String s = spec.strip();
    if (s.startsWith("norefresh:")) {
      NearVariant base = of(s.substring("norefresh:".length()));
      return new NearVariant(base.label() + ", no refresh-ahead", base.options().withRefreshAhead(false));
    }
    int slash = s.indexOf('/');
    if (slash >= 0) {
      java.time.Duration staleness;
      try {
        staleness = new EndToEndBenchmark.DurationConverter().convert(s.substring(slash + 1));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("bad max staleness in near cache '" + spec + "': " + e.getMessage());
      }
      NearVariant base = of(s.substring(0, slash));
      return new NearVariant(
          base.label() + ", staleness " + s.substring(slash + 1), base.options().withMaxStaleness(staleness));
    }
    NearCacheOptions defaults = NearCacheOptions.defaults();
    if (s.equals("hot")) {
      return new NearVariant("near, hot keys (" + defaults.hotThreshold() + ")", defaults);
    }
    if (s.equals("all")) {
      return new NearVariant("near, all keys", defaults.withHotOnly(false));
    }
    if (s.startsWith("hot:")) {
      int threshold;
      try {
        threshold = Integer.parseInt(s.substring(4));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("expected hot:N with a number N but got '" + spec + "'");
      }
      return new NearVariant("near, hot keys (" + threshold + ")", defaults.withHotThreshold(threshold));
    }
    throw new IllegalArgumentException("unknown near cache '" + spec + "'; expected hot, hot:N or all, each with an optional"
        + " /D and norefresh: before");
  }
}
