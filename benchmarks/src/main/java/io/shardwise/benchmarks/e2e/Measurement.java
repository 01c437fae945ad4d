package io.shardwise.benchmarks.e2e;

import org.HdrHistogram.Histogram;

/**
 * One timed run of one contender.
 *
 * @param units commands or keys completed
 * @param nanos wall time from the start signal until every thread stopped
 * @param latency nanoseconds per step (one command, batch or multi-get)
 * @param errors steps that threw
 * @param wrongValues values read that were not the key's value (misses included)
 * @param firstError the first step failure, or null
 * @param cpuNanos CPU time of the whole JVM during the run (clients only: servers are separate
 *     processes)
 * @param allocatedBytes bytes allocated by all JVM threads during the run
 * @param serverCommands commands the servers counted during the run, or -1 if not counted
 * @param serverBytesIn bytes the servers received during the run, or -1 if not counted
 * @param gets single-key gets the load issued
 * @param serverGets get requests the client sent to servers for them, or -1 if it does not say
 */
record Measurement(
    long units,
    long nanos,
    Histogram latency,
    long errors,
    long wrongValues,
    Throwable firstError,
    long cpuNanos,
    long allocatedBytes,
    long serverCommands,
    long serverBytesIn,
    long gets,
    long serverGets) {

  /** Units per second. */
  double rate() {
    return units * 1e9 / nanos;
  }

  boolean clean() {
    return errors == 0 && wrongValues == 0;
  }

  Measurement withServerCounts(Servers.Counters counted) {
    return new Measurement(
        units,
        nanos,
        latency,
        errors,
        wrongValues,
        firstError,
        cpuNanos,
        allocatedBytes,
        counted.commands(),
        counted.bytesIn(),
        gets,
        serverGets);
  }

  /**
   * The share of gets answered without a server request (a near cache's hits), or NaN when the
   * client does not count its requests or no get was issued.
   */
  double localHitRatio() {
    return serverGets < 0 || gets == 0 ? Double.NaN : 1.0 - (double) serverGets / gets;
  }
}
