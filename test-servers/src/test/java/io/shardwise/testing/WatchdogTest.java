package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Servers must not outlive a test JVM, however it ends. */
class WatchdogTest {

  /** Started in a child JVM: prints the server's pid and directory, then waits to be killed. */
  public static final class ChildJvm {
    public static void main(String[] args) throws InterruptedException {
      ServerFleet<MemcachedServer> fleet =
          ServerFleet.memcachedBuilder().mode(ServerMode.LOCAL).build().start();
      MemcachedServer server = fleet.server(0);
      System.out.println(
          server.pid().getAsLong() + " " + ((LocalServer) server.instance()).directory());
      System.out.flush();
      Thread.sleep(60_000);
    }
  }

  private static Process startChild() throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java, "-cp", System.getProperty("java.class.path"), ChildJvm.class.getName())
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
  }

  private static List<String> readPidAndDirectory(Process child) throws IOException {
    BufferedReader reader =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    String line = reader.readLine();
    assertThat(line).as("child JVM output").isNotNull();
    return List.of(line.split(" ", 2));
  }

  private static boolean awaitGone(long pid) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      if (StandaloneUseTest.isGone(pid)) {
        return true;
      }
      Thread.sleep(20);
    }
    return false;
  }

  private static boolean awaitDeleted(Path directory) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      if (!Files.exists(directory)) {
        return true;
      }
      Thread.sleep(20);
    }
    return false;
  }

  @Test
  void watchdogKillsTheServerAndRemovesItsDirectoryWhenTheJvmGetsSigkill() throws Exception {
    Process child = startChild();
    try {
      List<String> pidAndDirectory = readPidAndDirectory(child);
      long serverPid = Long.parseLong(pidAndDirectory.get(0));
      Path directory = new File(pidAndDirectory.get(1)).toPath();
      assertThat(StandaloneUseTest.isGone(serverPid)).isFalse();

      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);

      assertThat(awaitGone(serverPid))
          .as("memcached %d killed by the watchdog", serverPid)
          .isTrue();
      assertThat(awaitDeleted(directory)).as("%s removed by the watchdog", directory).isTrue();
    } finally {
      child.destroyForcibly();
    }
  }

  @Test
  void shutdownHookStopsTheServerAndRemovesItsDirectoryOnSigterm() throws Exception {
    Process child = startChild();
    try {
      List<String> pidAndDirectory = readPidAndDirectory(child);
      long serverPid = Long.parseLong(pidAndDirectory.get(0));
      Path directory = new File(pidAndDirectory.get(1)).toPath();
      assertThat(directory).isDirectory();

      child.destroy();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();

      assertThat(awaitGone(serverPid)).isTrue();
      assertThat(Files.exists(directory)).isFalse();
    } finally {
      child.destroyForcibly();
    }
  }
}
