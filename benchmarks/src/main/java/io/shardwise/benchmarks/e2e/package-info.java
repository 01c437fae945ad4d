/**
 * End-to-end benchmark of Shardwise against the bare clients it wraps: bare spymemcached and bare
 * Lettuce on the same local servers, run alternately in one JVM and reported as ratios. Entry
 * point: {@link io.shardwise.benchmarks.e2e.EndToEndBenchmark}; see {@code docs/benchmarks.md}.
 */
package io.shardwise.benchmarks.e2e;
