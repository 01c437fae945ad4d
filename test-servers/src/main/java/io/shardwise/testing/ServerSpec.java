package io.shardwise.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything needed to start one server, from the {@link ServerFleet.Builder}. */
record ServerSpec(
    ServerKind kind,
    boolean persistent,
    int memoryMegabytes,
    List<String> extraArgs,
    Duration startupTimeout,
    Duration ioTimeout,
    Path executable,
    String image,
    ServerTls tls,
    Map<String, String> saslUsers) {

  ServerSpec {
    extraArgs = List.copyOf(extraArgs);
    image = image != null ? image : kind.defaultImage();
    saslUsers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(saslUsers));
  }

  ServerSpec(
      ServerKind kind,
      boolean persistent,
      int memoryMegabytes,
      List<String> extraArgs,
      Duration startupTimeout,
      Duration ioTimeout,
      Path executable,
      String image) {
    this(
        kind,
        persistent,
        memoryMegabytes,
        extraArgs,
        startupTimeout,
        ioTimeout,
        executable,
        image,
        null,
        Map.of());
  }

  /** memcached started with {@code -S}: binary protocol only, SASL PLAIN against a sasldb. */
  boolean sasl() {
    return !saslUsers.isEmpty();
  }

  /** Whether the server needs something the raw text/RESP helpers and Docker mode do not do. */
  boolean secured() {
    return tls != null || sasl();
  }
}
