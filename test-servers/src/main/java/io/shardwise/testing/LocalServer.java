package io.shardwise.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;

/** A server run as a local process on a loopback port, with its own temporary directory. */
final class LocalServer implements ServerInstance {
  private static final int PORT_ATTEMPTS = 5;
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);

  private enum Outcome {
    READY,
    PORT_TAKEN
  }

  private final ServerSpec spec;
  private final Path executable;
  private final Path directory;
  private final Path logFile;
  private final boolean root;
  private int port = -1;
  private ManagedProcess process;
  private boolean closed;

  LocalServer(ServerSpec spec, Path executable) {
    this.spec = spec;
    this.executable = executable;
    this.root = LocalOs.isRoot();
    try {
      this.directory = Files.createTempDirectory("shardwise-" + spec.kind().displayName() + "-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
    this.logFile = directory.resolve("server.log");
    ShutdownReaper.register(this);
    if (spec.sasl()) {
      try {
        LocalSasl.prepare(directory, spec.saslUsers());
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }
  }

  @Override
  public synchronized void start() {
    long deadline = System.nanoTime() + spec.startupTimeout().toNanos();
    for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
      int candidate = FreePorts.next();
      if (launch(candidate, deadline) == Outcome.READY) {
        port = candidate;
        return;
      }
    }
    throw new ServerStartupException(
        spec.kind().displayName()
            + " found its port taken "
            + PORT_ATTEMPTS
            + " times in a row; last output:\n"
            + LocalOs.lastLines(logFile, 20));
  }

  @Override
  public synchronized void startAgain() {
    if (isRunning()) {
      throw new IllegalStateException(this + " is still running");
    }
    long deadline = System.nanoTime() + spec.startupTimeout().toNanos();
    while (launch(port, deadline) == Outcome.PORT_TAKEN) {
      if (System.nanoTime() > deadline) {
        throw new ServerStartupException(
            this
                + " could not restart: port "
                + port
                + " stayed in use for "
                + spec.startupTimeout()
                + "; last output:\n"
                + LocalOs.lastLines(logFile, 20));
      }
      LocalOs.sleep(100);
    }
  }

  private Outcome launch(int candidate, long deadline) {
    String description = spec.kind().displayName() + " on " + host() + ":" + candidate;
    ManagedProcess launched =
        ManagedProcess.launch(
            description,
            ServerCommands.local(spec, executable, candidate, directory, root),
            ServerCommands.localEnvironment(spec, directory),
            directory,
            logFile);
    while (true) {
      if (!launched.isAlive()) {
        String output = launched.outputSinceLaunch();
        if (output.contains("Address already in use")) {
          return Outcome.PORT_TAKEN;
        }
        throw new ServerStartupException(
            description
                + " exited with code "
                + launched.exitValue()
                + " before answering "
                + spec.kind().probeCommand()
                + "; output:\n"
                + LocalOs.lastLines(output, 20));
      }
      if (Probes.answers(spec, host(), candidate, Probes.PROBE_TIMEOUT)) {
        OptionalLong reported = Probes.reportedPid(spec, host(), candidate, Probes.PROBE_TIMEOUT);
        if (reported.isPresent() && reported.getAsLong() != launched.pid()) {
          // Another server already listens there and answered in place of ours.
          launched.killNow();
          return Outcome.PORT_TAKEN;
        }
        process = launched;
        return Outcome.READY;
      }
      if (System.nanoTime() > deadline) {
        launched.killNow();
        throw new ServerStartupException(
            description
                + " did not answer "
                + spec.kind().probeCommand()
                + " within "
                + spec.startupTimeout()
                + "; output:\n"
                + LocalOs.lastLines(launched.outputSinceLaunch(), 20));
      }
      LocalOs.sleep(20);
    }
  }

  @Override
  public ServerSpec spec() {
    return spec;
  }

  @Override
  public synchronized void stop() {
    if (process != null) {
      process.terminate(STOP_GRACE);
    }
  }

  @Override
  public synchronized void kill() {
    if (process != null) {
      process.killNow();
    }
  }

  @Override
  public synchronized void pause() {
    requireRunning("pause");
    process.pause();
  }

  @Override
  public synchronized void resume() {
    requireRunning("resume");
    process.resume();
  }

  @Override
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  @Override
  public String host() {
    return ServerCommands.LOOPBACK;
  }

  @Override
  public synchronized int port() {
    return port;
  }

  @Override
  public synchronized OptionalLong pid() {
    return isRunning() ? OptionalLong.of(process.pid()) : OptionalLong.empty();
  }

  @Override
  public String logTail(int lines) {
    return LocalOs.lastLines(logFile, lines);
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (process != null && process.isAlive()) {
        process.killNow();
      }
    } finally {
      LocalOs.deleteRecursively(directory);
      ShutdownReaper.unregister(this);
    }
  }

  Path directory() {
    return directory;
  }

  private void requireRunning(String action) {
    if (!isRunning()) {
      throw new IllegalStateException("cannot " + action + " " + this + ": it is not running");
    }
  }

  @Override
  public String toString() {
    return spec.kind().displayName() + " " + host() + ":" + port + " (local)";
  }
}
