/**
 * What the near cache costs: {@link io.shardwise.benchmarks.near.NearCacheMemoryBenchmark}
 * measures its heap after full collections; see {@code docs/near-cache.md}.
 */
package io.shardwise.benchmarks.near;
