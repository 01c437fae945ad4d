package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

/** The fleet without the JUnit extension machinery, and its failure reports. */
class StandaloneUseTest {

  private static ExtensionContext context(String uniqueId) {
    return (ExtensionContext)
        Proxy.newProxyInstance(
            ExtensionContext.class.getClassLoader(),
            new Class<?>[] {ExtensionContext.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getUniqueId")) {
                return uniqueId;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  @Test
  void closeStopsEveryProcessAndRemovesTemporaryDirectories() {
    List<Long> pids = new ArrayList<>();
    List<Path> directories = new ArrayList<>();
    int openBefore = ShutdownReaper.openCount();
    try (ServerFleet<MemcachedServer> fleet =
        ServerFleet.memcachedBuilder().servers(2).mode(ServerMode.LOCAL).build().start()) {
      assertThat(fleet.mode()).isEqualTo(ServerMode.LOCAL);
      for (MemcachedServer server : fleet.servers()) {
        pids.add(server.pid().getAsLong());
        Path directory = ((LocalServer) server.instance()).directory();
        assertThat(directory).isDirectory();
        directories.add(directory);
      }
      assertThat(ShutdownReaper.openCount()).isEqualTo(openBefore + 2);
    }
    assertThat(pids).allSatisfy(pid -> assertThat(isGone(pid)).isTrue());
    assertThat(directories).allSatisfy(directory -> assertThat(Files.exists(directory)).isFalse());
    assertThat(ShutdownReaper.openCount()).isEqualTo(openBefore);
  }

  @Test
  void aStartedFleetCannotBeStartedTwiceButCanAfterClose() {
    ServerFleet<RedisServer> fleet = ServerFleet.redis(1);
    try {
      fleet.start();
      assertThatThrownBy(fleet::start).isInstanceOf(IllegalStateException.class);
      fleet.close();
      assertThat(fleet.isStarted()).isFalse();
      assertThatThrownBy(() -> fleet.server(0)).hasMessageContaining("is not started");
      fleet.start();
      assertThat(fleet.server(0).isAnswering()).isTrue();
    } finally {
      fleet.close();
    }
  }

  @Test
  void extensionStopsTheFleetOnlyInTheContextThatStartedIt() {
    ServerFleet<MemcachedServer> fleet = ServerFleet.memcached(1);
    ExtensionContext testClass = context("[engine:junit-jupiter]/[class:Outer]");
    ExtensionContext nestedClass = context("[engine:junit-jupiter]/[class:Outer]/[nested:Inner]");
    ExtensionContext testMethod = context("[engine:junit-jupiter]/[class:Outer]/[method:m()]");
    try {
      fleet.beforeAll(testClass);
      fleet.beforeAll(nestedClass);
      fleet.beforeEach(testMethod);
      fleet.afterEach(testMethod);
      fleet.afterAll(nestedClass);
      assertThat(fleet.isStarted()).isTrue();

      fleet.afterAll(testClass);
      assertThat(fleet.isStarted()).isFalse();

      // Registered on an instance field, the fleet only sees the per-test callbacks.
      fleet.beforeEach(testMethod);
      assertThat(fleet.isStarted()).isTrue();
      fleet.afterEach(testMethod);
      assertThat(fleet.isStarted()).isFalse();
    } finally {
      fleet.close();
    }
  }

  @Test
  void startupFailureReportsTheServersOwnOutputAndLeavesNothingBehind() {
    int openBefore = ShutdownReaper.openCount();
    ServerFleet<RedisServer> broken =
        ServerFleet.redisBuilder()
            .servers(2)
            .mode(ServerMode.LOCAL)
            .extraArgs("--no-such-directive", "yes")
            .build();

    assertThatThrownBy(broken::start)
        .isInstanceOf(ServerStartupException.class)
        .hasMessageContaining("exited with code 1 before answering PING")
        .hasMessageContaining("Bad directive or wrong number of arguments");
    assertThat(broken.isStarted()).isFalse();
    assertThat(ShutdownReaper.openCount()).isEqualTo(openBefore);
  }

  @Test
  void missingExecutableIsReportedWithWhereItWasSearched() {
    ServerFleet<MemcachedServer> fleet =
        ServerFleet.memcachedBuilder()
            .mode(ServerMode.LOCAL)
            .executable(Path.of("/nonexistent/memcached"))
            .build();
    assertThatThrownBy(fleet::start)
        .isInstanceOf(ServerStartupException.class)
        .hasMessage("/nonexistent/memcached is not an executable file");
  }

  @Test
  void forcedDockerModeWithoutAnEngineFailsClearly() {
    assumeFalse(DockerDetection.isDockerLikelyAvailable(), "a Docker engine is reachable here");
    ServerFleet<RedisServer> fleet = ServerFleet.redisBuilder().mode(ServerMode.DOCKER).build();
    assertThatThrownBy(fleet::start)
        .isInstanceOf(ServerStartupException.class)
        .hasMessageContaining("finds no reachable Docker engine");
  }

  @Test
  void buildersRejectNonsense() {
    assertThatThrownBy(() -> ServerFleet.memcachedBuilder().servers(0))
        .hasMessage("servers must be >= 1 but was 0");
    assertThatThrownBy(() -> ServerFleet.redisBuilder().startupTimeout(java.time.Duration.ZERO))
        .hasMessage("startupTimeout must be > 0 but was PT0S");
  }

  static boolean isGone(long pid) {
    char state = LocalOs.processState(pid);
    return state == '?' || state == 'Z' || state == 'X';
  }
}
