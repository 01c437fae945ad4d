package io.shardwise.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides whether Docker mode is possible. A cheap look for an engine socket or configuration comes
 * first, so that machines without Docker (like CI) never load Testcontainers at all.
 */
final class DockerDetection {
  private static Boolean engineReachable;

  private DockerDetection() {}

  /** For {@link ServerMode#AUTO}: asks Testcontainers only if there is a sign of an engine. */
  static boolean isDockerLikelyAvailable() {
    return testcontainersPresent() && engineHinted() && isEngineReachable();
  }

  /** For a forced {@link ServerMode#DOCKER}: always asks Testcontainers. */
  static boolean isDockerAvailable() {
    return testcontainersPresent() && isEngineReachable();
  }

  private static synchronized boolean isEngineReachable() {
    if (engineReachable == null) {
      engineReachable = ContainerServer.dockerAvailable();
    }
    return engineReachable;
  }

  static boolean testcontainersPresent() {
    try {
      Class.forName(
          "org.testcontainers.DockerClientFactory", false, DockerDetection.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Any sign of a Docker-compatible engine: DOCKER_HOST, a known socket, Testcontainers config. */
  static boolean engineHinted() {
    String dockerHost = System.getenv("DOCKER_HOST");
    if (dockerHost != null && !dockerHost.isBlank()) {
      return true;
    }
    if (LocalOs.isWindows()) {
      return true;
    }
    String home = System.getProperty("user.home", "");
    if (Files.exists(Path.of(home, ".testcontainers.properties"))) {
      return true;
    }
    for (Path socket : candidateSockets(home)) {
      if (Files.exists(socket)) {
        return true;
      }
    }
    return false;
  }

  private static List<Path> candidateSockets(String home) {
    List<Path> sockets =
        new ArrayList<>(
            List.of(
                Path.of("/var/run/docker.sock"),
                Path.of("/run/docker.sock"),
                Path.of(home, ".docker", "run", "docker.sock"),
                Path.of(home, ".docker", "desktop", "docker.sock"),
                Path.of(home, ".colima", "default", "docker.sock"),
                Path.of(home, ".colima", "docker.sock"),
                Path.of(home, ".rd", "docker.sock"),
                Path.of(home, ".orbstack", "run", "docker.sock")));
    String runtimeDir = System.getenv("XDG_RUNTIME_DIR");
    if (runtimeDir != null && !runtimeDir.isBlank()) {
      sockets.add(Path.of(runtimeDir, "docker.sock"));
      sockets.add(Path.of(runtimeDir, "podman", "podman.sock"));
    }
    String socketOverride = System.getenv("TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE");
    if (socketOverride != null && !socketOverride.isBlank()) {
      sockets.add(Path.of(socketOverride));
    }
    return sockets;
  }
}
