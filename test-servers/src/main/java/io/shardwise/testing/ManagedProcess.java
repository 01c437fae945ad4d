package io.shardwise.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of a local server or proxy process, with its output appended to a log file.
 *
 * <p>Besides the JVM shutdown hook, each process gets a watchdog: a {@code /bin/sh} blocked on
 * reading a pipe whose only writer is this JVM. When the JVM dies in any way, even by SIGKILL, the
 * pipe reaches end-of-file and the watchdog kills the process and removes its working directory (a
 * temporary directory owned by this run), so nothing outlives the tests.
 */
final class ManagedProcess {
  private static final String WATCHDOG_SCRIPT =
      "read line; kill -9 \"$0\" 2>/dev/null; sleep 1; rm -rf \"$1\"";

  private final String description;
  private final Process process;
  private final Process watchdog;
  private final Path logFile;
  private final long logOffset;

  private ManagedProcess(
      String description, Process process, Process watchdog, Path logFile, long logOffset) {
    this.description = description;
    this.process = process;
    this.watchdog = watchdog;
    this.logFile = logFile;
    this.logOffset = logOffset;
  }

  static ManagedProcess launch(
      String description, List<String> command, Path workDir, Path logFile) {
    return launch(description, command, Map.of(), workDir, logFile);
  }

  /** {@link #launch(String, List, Path, Path)} with {@code environment} added to the JVM's. */
  static ManagedProcess launch(
      String description,
      List<String> command,
      Map<String, String> environment,
      Path workDir,
      Path logFile) {
    try {
      long offset = Files.exists(logFile) ? Files.size(logFile) : 0;
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      builder.environment().putAll(environment);
      Process process = builder.start();
      process.getOutputStream().close();
      Process watchdog = startWatchdog(process.pid(), workDir);
      if (watchdog != null) {
        process.onExit().thenRun(watchdog::destroyForcibly);
      }
      return new ManagedProcess(description, process, watchdog, logFile, offset);
    } catch (IOException e) {
      throw new ServerStartupException(
          "cannot run " + String.join(" ", command) + " for " + description + ": " + e, e);
    }
  }

  private static Process startWatchdog(long pid, Path workDir) {
    if (!Files.isExecutable(LocalOs.SHELL)) {
      return null;
    }
    try {
      return new ProcessBuilder(
              LocalOs.SHELL.toString(),
              "-c",
              WATCHDOG_SCRIPT,
              Long.toString(pid),
              workDir.toAbsolutePath().toString())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
    } catch (IOException e) {
      return null;
    }
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Exit code; only meaningful once {@link #isAlive()} is false. */
  int exitValue() {
    return process.exitValue();
  }

  /** Everything the process wrote since this run started. */
  String outputSinceLaunch() {
    try {
      byte[] all = Files.readAllBytes(logFile);
      int from = (int) Math.min(all.length, logOffset);
      return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(cannot read " + logFile + ": " + e + ")";
    }
  }

  void pause() {
    LocalOs.signal(pid(), "STOP");
    awaitState(true);
  }

  void resume() {
    LocalOs.signal(pid(), "CONT");
    awaitState(false);
  }

  /**
   * SIGTERM (after SIGCONT, so a paused process can act on it), then SIGKILL after {@code grace}.
   */
  void terminate(Duration grace) {
    if (!process.isAlive()) {
      stopWatchdog();
      return;
    }
    try {
      LocalOs.signal(pid(), "CONT");
    } catch (RuntimeException e) {
      // It may have exited in between; destroy() below copes either way.
    }
    process.destroy();
    if (!waitForExit(grace)) {
      process.destroyForcibly();
      waitForExit(Duration.ofSeconds(10));
    }
    stopWatchdog();
  }

  /** SIGKILL, and wait until the process is gone. */
  void killNow() {
    process.destroyForcibly();
    if (!waitForExit(Duration.ofSeconds(10))) {
      throw new IllegalStateException(description + " (pid " + pid() + ") survived SIGKILL");
    }
    stopWatchdog();
  }

  private boolean waitForExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void awaitState(boolean stopped) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (System.nanoTime() < deadline && process.isAlive()) {
      char state = LocalOs.processState(pid());
      if (state == '?') {
        return;
      }
      boolean isStopped = state == 'T' || state == 't';
      if (isStopped == stopped) {
        return;
      }
      LocalOs.sleep(5);
    }
  }

  private void stopWatchdog() {
    if (watchdog != null && watchdog.isAlive()) {
      watchdog.destroyForcibly();
    }
  }

  @Override
  public String toString() {
    return description + " (pid " + pid() + ")";
  }
}
