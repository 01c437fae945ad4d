package io.shardwise.testing;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import java.util.Locale;
import java.util.OptionalLong;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.StartupCheckStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * A server run as a Testcontainers container with host networking, listening on a free loopback
 * port of the host, so that a restart (docker start of the same container) keeps the address and,
 * for persistent Redis, the data in {@code /data}.
 *
 * <p>Stop is {@code docker stop} (SIGTERM), kill is {@code docker kill -s KILL}, pause and resume
 * are {@code docker pause} / {@code unpause} (cgroup freezer: the server stops answering exactly as
 * under SIGSTOP). This class is loaded only in Docker mode.
 */
final class ContainerServer implements ServerInstance {
  private static final int PORT_ATTEMPTS = 3;
  private static final int STOP_TIMEOUT_SECONDS = 10;
  private static final String WHAT_TO_DO =
      "what to do: the image must be on the engine (scripts/docker-images.sh builds memcached:1.6"
          + " and redis:7 from Debian's packages), and the server must accept its arguments (see"
          + " the log below); or run the servers as local processes: -D"
          + ServerMode.PROPERTY
          + "=local";

  private final ServerSpec spec;
  private GenericContainer<?> container;
  private int hostPort = -1;
  private boolean closed;

  ContainerServer(ServerSpec spec) {
    this.spec = spec;
    ShutdownReaper.register(this);
  }

  /** Asks Testcontainers whether it can reach a Docker engine. */
  static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  @Override
  public ServerSpec spec() {
    return spec;
  }

  @Override
  public synchronized void start() {
    ServerStartupException failure = null;
    for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
      int candidate = FreePorts.next();
      GenericContainer<?> created = newContainer(spec, candidate);
      try {
        created.start();
        container = created;
        hostPort = candidate;
        awaitAnswering();
        return;
      } catch (RuntimeException e) {
        String log = logTail(created, 20);
        container = null;
        hostPort = -1;
        stopQuietly(created);
        failure = startupFailure(candidate, e, log);
        if (!mentionsPortConflict(e) && !mentionsPortConflict(log)) {
          throw failure;
        }
      }
    }
    throw failure;
  }

  /**
   * The container definition; creating it does not contact the engine. Host networking: the server
   * listens on {@code 127.0.0.1:hostPort} of the host itself, so no traffic leaves loopback, no
   * bridge network is needed, and a restart of the same container keeps the address.
   */
  static GenericContainer<?> newContainer(ServerSpec spec, int hostPort) {
    GenericContainer<?> created = new GenericContainer<>(DockerImageName.parse(spec.image()));
    created.withNetworkMode("host");
    created.withCommand(ServerCommands.container(spec, hostPort).toArray(new String[0]));
    created.withStartupTimeout(spec.startupTimeout());
    // Whether the server started is decided by awaitAnswering, which reads the log of a container
    // that stopped; Testcontainers' own check would remove such a container, and its log, first.
    created.withStartupCheckStrategy(new StartedIsEnough());
    created.withLabel("io.shardwise.test-servers", spec.kind().displayName());
    return created;
  }

  /** A container that was started counts as started; the server's answer is awaited after. */
  private static final class StartedIsEnough extends StartupCheckStrategy {
    @Override
    public StartupStatus checkStartupState(DockerClient dockerClient, String containerId) {
      return StartupStatus.SUCCESSFUL;
    }
  }

  private ServerStartupException startupFailure(int port, RuntimeException cause, String log) {
    StringBuilder causes = new StringBuilder(String.valueOf(cause.getMessage()));
    for (Throwable t = cause.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t.getMessage() != null && causes.indexOf(t.getMessage()) < 0) {
        causes.append("; caused by: ").append(t.getMessage());
      }
    }
    return new ServerStartupException(
        "could not start a "
            + spec.image()
            + " container on "
            + ServerCommands.LOOPBACK
            + ":"
            + port
            + ": "
            + causes
            + "\n"
            + WHAT_TO_DO
            + "\ncontainer log:\n"
            + log,
        cause);
  }

  private static boolean mentionsPortConflict(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (mentionsPortConflict(String.valueOf(t.getMessage()))) {
        return true;
      }
    }
    return false;
  }

  private static boolean mentionsPortConflict(String text) {
    String message = text.toLowerCase(Locale.ROOT);
    return message.contains("port is already allocated")
        || message.contains("address already in use");
  }

  /**
   * Waits until the server answers; fails at once, with the container's log, when the container
   * stops first (a server that exits on its arguments, or on a port taken meanwhile).
   */
  private void awaitAnswering() {
    long deadline = System.nanoTime() + spec.startupTimeout().toNanos();
    while (!Probes.answers(spec, host(), hostPort, Probes.PROBE_TIMEOUT)) {
      InspectContainerResponse.ContainerState state = state();
      if (state == null || !Boolean.TRUE.equals(state.getRunning())) {
        throw new IllegalStateException(
            this
                + " stopped before it answered "
                + spec.kind().probeCommand()
                + (state == null ? "" : " (exit code " + state.getExitCodeLong() + ")"));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            this
                + " runs but did not answer "
                + spec.kind().probeCommand()
                + " within "
                + spec.startupTimeout());
      }
      LocalOs.sleep(50);
    }
  }

  @Override
  public synchronized void startAgain() {
    if (isRunning()) {
      throw new IllegalStateException(this + " is still running");
    }
    client().startContainerCmd(containerId()).exec();
    try {
      awaitAnswering();
    } catch (IllegalStateException e) {
      throw startupFailure(hostPort, e, logTail(20));
    }
  }

  @Override
  public synchronized void stop() {
    if (isRunning()) {
      if (isFrozen()) {
        client().unpauseContainerCmd(containerId()).exec();
      }
      client().stopContainerCmd(containerId()).withTimeout(STOP_TIMEOUT_SECONDS).exec();
    }
  }

  @Override
  public synchronized void kill() {
    if (isRunning()) {
      try {
        client().killContainerCmd(containerId()).withSignal("KILL").exec();
      } catch (RuntimeException refusedWhilePaused) {
        client().unpauseContainerCmd(containerId()).exec();
        client().killContainerCmd(containerId()).withSignal("KILL").exec();
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (isRunning() && System.nanoTime() < deadline) {
        LocalOs.sleep(20);
      }
    }
  }

  @Override
  public synchronized void pause() {
    requireRunning("pause");
    client().pauseContainerCmd(containerId()).exec();
  }

  @Override
  public synchronized void resume() {
    requireRunning("resume");
    if (isFrozen()) {
      client().unpauseContainerCmd(containerId()).exec();
    }
  }

  @Override
  public synchronized boolean isRunning() {
    InspectContainerResponse.ContainerState state = state();
    return state != null && Boolean.TRUE.equals(state.getRunning());
  }

  private boolean isFrozen() {
    InspectContainerResponse.ContainerState state = state();
    return state != null && Boolean.TRUE.equals(state.getPaused());
  }

  private InspectContainerResponse.ContainerState state() {
    if (container == null || container.getContainerId() == null) {
      return null;
    }
    return client().inspectContainerCmd(containerId()).exec().getState();
  }

  @Override
  public String host() {
    return ServerCommands.LOOPBACK;
  }

  @Override
  public synchronized int port() {
    return hostPort;
  }

  /** Container processes live in another pid namespace; callers signal through Docker instead. */
  @Override
  public OptionalLong pid() {
    return OptionalLong.empty();
  }

  @Override
  public String logTail(int lines) {
    return logTail(container, lines);
  }

  private static String logTail(GenericContainer<?> target, int lines) {
    if (target == null || target.getContainerId() == null) {
      return "(no container)";
    }
    try {
      return LocalOs.lastLines(target.getLogs(), lines);
    } catch (RuntimeException e) {
      return "(cannot read the container log: " + e + ")";
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (container != null) {
        stopQuietly(container);
      }
    } finally {
      ShutdownReaper.unregister(this);
    }
  }

  private static void stopQuietly(GenericContainer<?> target) {
    try {
      target.stop();
    } catch (RuntimeException e) {
      System.err.println("shardwise-test-servers: could not remove container: " + e);
    }
  }

  private DockerClient client() {
    return container.getDockerClient();
  }

  private String containerId() {
    return container.getContainerId();
  }

  private void requireRunning(String action) {
    if (!isRunning()) {
      throw new IllegalStateException("cannot " + action + " " + this + ": it is not running");
    }
  }

  @Override
  public String toString() {
    return spec.kind().displayName() + " " + host() + ":" + hostPort + " (" + spec.image() + ")";
  }
}
