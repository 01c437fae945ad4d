package io.shardwise.testing;

/** The cache server a {@link ServerFleet} runs. */
public enum ServerKind {
  MEMCACHED("memcached", "memcached:1.6", "version"),
  REDIS("redis-server", "redis:7", "PING");

  private final String executableName;
  private final String defaultImage;
  private final String probeCommand;

  ServerKind(String executableName, String defaultImage, String probeCommand) {
    this.executableName = executableName;
    this.defaultImage = defaultImage;
    this.probeCommand = probeCommand;
  }

  /** Name of the server binary looked up on the PATH in local mode. */
  public String executableName() {
    return executableName;
  }

  /** Docker image used in Docker mode unless the builder names another one. */
  public String defaultImage() {
    return defaultImage;
  }

  String probeCommand() {
    return probeCommand;
  }

  String displayName() {
    return this == MEMCACHED ? "memcached" : "redis";
  }
}
