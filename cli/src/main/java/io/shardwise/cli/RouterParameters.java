package io.shardwise.cli;

import io.shardwise.core.RouterSpec;
import io.shardwise.ketama.HashRingRouter;
import io.shardwise.routers.MaglevRouter;
import io.shardwise.routers.MultiProbeRouter;
import io.shardwise.routing.HashTag;
import picocli.CommandLine.Option;

/** The router parameters and the hash tag that {@code locate} and {@code plan} share. */
final class RouterParameters {

  @Option(names = "--points", description = "Points per node of the ring router (default: 160).")
  int points = HashRingRouter.DEFAULT_POINTS_PER_NODE;

  @Option(names = "--probes", description = "Probes per key of the multiprobe router (default: 21).")
  int probes = MultiProbeRouter.DEFAULT_PROBES;

  @Option(names = "--table-size", description = "Maglev table size, a prime (default: 65537).")
  int tableSize = MaglevRouter.DEFAULT_TABLE_SIZE;

  @Option(
      names = "--compat-mode",
      description = "Peer placement of the compat router, e.g. twemproxy:fnv1a_64:ketama (default: ${DEFAULT-VALUE}).")
  String compatMode = RouterSpec.DEFAULT_COMPAT_MODE.id();

  @Option(names = "--hash-tag", description = "Hash only the part of a key between this pair, e.g. {}.")
  String hashTag = "";

  /** {@code spec} with these parameters. */
  RouterSpec applyTo(RouterSpec spec) {
    return spec.withRingPoints(points).withProbes(probes).withTableSize(tableSize).withCompatMode(compatMode);
  }

  HashTag hashTag() {
    return HashTag.of(hashTag);
  }
}
