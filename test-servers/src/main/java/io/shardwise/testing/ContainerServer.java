package io.shardwise.testing;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.util.Locale;
import java.util.OptionalLong;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A server run as a Testcontainers container whose port is published on a fixed loopback host port,
 * so that a restart (docker start of the same container) keeps the address and, for persistent
 * Redis, the data in {@code /data}.
 *
 * <p>Stop is {@code docker stop} (SIGTERM), kill is {@code docker kill -s KILL}, pause and resume
 * are {@code docker pause} / {@code unpause} (cgroup freezer: the server stops answering exactly as
 * under SIGSTOP). This class is loaded only in Docker mode.
 */
final class ContainerServer implements ServerInstance {
  private static final int PORT_ATTEMPTS = 3;
  private static final int STOP_TIMEOUT_SECONDS = 10;

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
    RuntimeException failure = null;
    for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
      int candidate = FreePorts.next();
      GenericContainer<?> created = newContainer(spec, candidate);
      try {
        created.start();
      } catch (RuntimeException e) {
        failure = e;
        stopQuietly(created);
        if (mentionsPortConflict(e)) {
          continue;
        }
        break;
      }
      container = created;
      hostPort = candidate;
      awaitAnswering();
      return;
    }
    throw new ServerStartupException(
        "could not start a " + spec.image() + " container: " + failure, failure);
  }

  /** The container definition; creating it does not contact the engine. */
  static GenericContainer<?> newContainer(ServerSpec spec, int boundHostPort) {
    int containerPort = spec.kind().containerPort();
    GenericContainer<?> created = new GenericContainer<>(DockerImageName.parse(spec.image()));
    created.withExposedPorts(containerPort);
    created.withCommand(ServerCommands.container(spec).toArray(new String[0]));
    created.withStartupTimeout(spec.startupTimeout());
    created.withLabel("io.shardwise.test-servers", spec.kind().displayName());
    created.withCreateContainerCmdModifier(
        cmd ->
            cmd.getHostConfig()
                .withPortBindings(
                    new PortBinding(
                        Ports.Binding.bindIpAndPort(ServerCommands.LOOPBACK, boundHostPort),
                        new ExposedPort(containerPort))));
    return created;
  }

  private static boolean mentionsPortConflict(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      if (message.contains("port is already allocated")
          || message.contains("address already in use")) {
        return true;
      }
    }
    return false;
  }

  private void awaitAnswering() {
    long deadline = System.nanoTime() + spec.startupTimeout().toNanos();
    while (!Probes.answers(spec, host(), hostPort, Probes.PROBE_TIMEOUT)) {
      if (System.nanoTime() > deadline) {
        throw new ServerStartupException(
            this
                + " did not answer "
                + spec.kind().probeCommand()
                + " within "
                + spec.startupTimeout()
                + "; container log:\n"
                + logTail(20));
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
    awaitAnswering();
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
    GenericContainer<?> current = container;
    if (current == null || current.getContainerId() == null) {
      return "(no container)";
    }
    try {
      return LocalOs.lastLines(current.getLogs(), lines);
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
