package io.shardwise.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Everything needed to start one server, from the {@link ServerFleet.Builder}. */
record ServerSpec(
    ServerKind kind,
    boolean persistent,
    int memoryMegabytes,
    List<String> extraArgs,
    Duration startupTimeout,
    Duration ioTimeout,
    Path executable,
    String image) {

  ServerSpec {
    extraArgs = List.copyOf(extraArgs);
    image = image != null ? image : kind.defaultImage();
  }
}
