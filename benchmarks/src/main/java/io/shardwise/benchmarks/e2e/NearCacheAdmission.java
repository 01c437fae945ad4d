package io.shardwise.benchmarks.e2e;

import io.shardwise.client.CachedValue;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.internal.near.NearCache;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The near cache's admission alone, without servers or threads: how many gets a {@link NearCache}
 * answers as it sees more of a key stream. One thread draws keys from {@link KeyStream}; a get
 * that misses takes a ticket and, when given one, offers the value at once (a server that answers
 * instantly); a set invalidates the key. Prints the hit ratio of each block of draws, so that the
 * time a hot-keys-only cache takes to learn the stream shows beside a cache that keeps every key.
 * Entries live {@code staleness} of wall time, far longer than a block here: expiry plays no part.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.e2e.NearCacheAdmission \
 *     [zipf-exponent=1.1] [near=hot] [blocks=10] [block-size=1000000]
 * </pre>
 *
 * <p>{@code near} as {@code EndToEndBenchmark --near}: {@code hot}, {@code hot:N} or {@code all}.
 * 98% gets, 100,000 keys, seed 1.
 */
public final class NearCacheAdmission {

  private NearCacheAdmission() {}

  public static void main(String[] args) {
    double exponent = args.length > 0 ? Double.parseDouble(args[0]) : 1.1;
    NearVariant variant = NearVariant.of(args.length > 1 ? args[1] : "hot");
    int blocks = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    int blockSize = args.length > 3 ? Integer.parseInt(args[3]) : 1_000_000;
    int keys = 100_000;
    String[] names = new String[keys];
    for (int i = 0; i < keys; i++) {
      names[i] = String.format(Locale.ROOT, "e2e:key:%05d", i);
    }
    KeyStream stream = exponent > 0 ? KeyStream.zipf(keys, exponent, 1) : KeyStream.uniform(keys);
    // tracked: a bound of minutes is allowed, so that no entry expires during the replay
    NearCache near = new NearCache(variant.options().withMaxStaleness(Duration.ofMinutes(10)), true);
    SplittableRandom random = new SplittableRandom(1);
    CachedValue value = CachedValue.of(new byte[100], 0);
    System.out.println("| " + stream + ", " + variant.label() + ": reads so far | hit ratio of the block | entries |");
    System.out.println("|--:|--:|--:|");
    long reads = 0;
    for (int b = 0; b < blocks; b++) {
      long gets = 0;
      long hits = 0;
      for (int i = 0; i < blockSize; i++) {
        String key = names[stream.next(random)];
        if (random.nextInt(100) >= 98) {
          near.invalidate(key);
          continue;
        }
        gets++;
        if (near.get(key) != null) {
          hits++;
          continue;
        }
        NearCache.Ticket ticket = near.ticket(key);
        if (ticket != null) {
          near.offer(ticket, value);
        }
      }
      reads += gets;
      System.out.printf(Locale.ROOT, "| %,d | %.3f | %,d |%n", reads, (double) hits / gets, near.entries());
    }
  }
}
