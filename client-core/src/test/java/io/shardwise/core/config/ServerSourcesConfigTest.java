package io.shardwise.core.config;

import static io.shardwise.core.sources.WatcherThreads.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.core.sources.ServersDns;
import io.shardwise.core.sources.ServersFile;
import io.shardwise.core.sources.WatcherThreads;
import io.shardwise.routing.Node;
import io.shardwise.spi.InvalidSettingsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code shardwise.servers-file}, {@code servers-dns} and {@code servers-refresh-interval}. */
@Timeout(30)
class ServerSourcesConfigTest {

  @TempDir Path dir;

  private static ShardwiseConfig config(String... keyValues) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("shardwise.backend", "memory");
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put("shardwise." + keyValues[i], keyValues[i + 1]);
    }
    return ShardwiseConfig.from(settings);
  }

  private static List<String> problems(String... keyValues) {
    try {
      config(keyValues);
    } catch (InvalidSettingsException e) {
      return e.problems();
    }
    throw new AssertionError("expected the settings to be rejected");
  }

  private Path file(String text) throws Exception {
    Path path = dir.resolve("servers.txt");
    Files.writeString(path, text);
    return path;
  }

  @Test
  void aServersFileGivesTheInitialListAndIsWatchedEverySecondByDefault() throws Exception {
    Path path = file("# fleet\n127.0.0.1:11211\ncache-b=127.0.0.1:11212:2 # rack b\n");
    ShardwiseConfig config = config("servers-file", path.toString());
    assertThat(config.servers())
        .containsExactly(Node.of("127.0.0.1", 11211), Node.named("cache-b", "127.0.0.1", 11212, 2));
    assertThat(config.serversFile()).hasValue(path);
    assertThat(config.serversDns()).isEmpty();
    assertThat(config.serversRefreshInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.serversSource().orElseThrow()).isInstanceOf(ServersFile.class);
    assertThat(config.settings())
        .containsEntry("shardwise.servers-file", path.toString())
        .containsEntry("shardwise.servers-refresh-interval", "1s")
        .containsEntry("shardwise.servers", "127.0.0.1:11211,cache-b=127.0.0.1:11212:2");
  }

  @Test
  void aDnsNameGivesOneServerPerAddressAndIsResolvedEvery30SecondsByDefault() {
    ShardwiseConfig config = config("servers-dns", "127.0.0.1:11211");
    assertThat(config.servers()).containsExactly(Node.of("127.0.0.1", 11211));
    assertThat(config.serversDns()).hasValue("127.0.0.1:11211");
    assertThat(config.serversRefreshInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.serversSource().orElseThrow()).isInstanceOf(ServersDns.class);
    assertThat(config("servers-dns", "127.0.0.1:11211", "servers-refresh-interval", "5s")
            .serversRefreshInterval())
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(config("servers", "127.0.0.1:1").serversSource()).isEmpty();
    assertThat(config("servers", "127.0.0.1:1").settings())
        .doesNotContainKeys("shardwise.servers-file", "shardwise.servers-refresh-interval");
    // Clients see a DNS change up to a refresh apart: the settle phase covers two.
    assertThat(config.settings()).containsEntry("shardwise.topology.settle", "1m");
    assertThat(config("servers", "127.0.0.1:1").settings()).containsEntry("shardwise.topology.settle", "10s");
    assertThat(config("servers-dns", "127.0.0.1:11211", "topology.settle", "0s").settings())
        .containsEntry("shardwise.topology.settle", "0");
  }

  @Test
  void badSourcesAreNamedWithTheKeyTheValueAndTheRule() throws Exception {
    Path path = file("127.0.0.1:11211\n");
    assertThat(problems("servers", "127.0.0.1:11211", "servers-file", path.toString()))
        .containsExactly(
            "shardwise.servers-file: cannot be combined with shardwise.servers; set exactly one"
                + " of shardwise.servers, shardwise.servers-file, shardwise.servers-dns");
    assertThat(problems("servers-file", path.toString(), "servers-dns", "127.0.0.1:1"))
        .containsExactly(
            "shardwise.servers-dns: cannot be combined with shardwise.servers-file; set exactly"
                + " one of shardwise.servers, shardwise.servers-file, shardwise.servers-dns");
    Path missing = dir.resolve("missing.txt");
    assertThat(problems("servers-file", missing.toString()))
        .containsExactly(
            "shardwise.servers-file: '" + missing + "' cannot be read:"
                + " java.nio.file.NoSuchFileException: " + missing);
    Path bad = file("127.0.0.1:11211\n127.0.0.1\n");
    assertThat(problems("servers-file", bad.toString()))
        .containsExactly(
            "shardwise.servers-file: '" + bad + "': server entry '127.0.0.1': expected host:port");
    assertThat(problems("servers-dns", "cache.svc"))
        .containsExactly(
            "shardwise.servers-dns: expected name:port such as"
                + " memcached.cache.svc.cluster.local:11211 but was 'cache.svc'");
    assertThat(problems("servers-dns", "no-such-host.invalid:11211"))
        .singleElement()
        .asString()
        .startsWith(
            "shardwise.servers-dns: dns name no-such-host.invalid:11211 cannot be resolved");
    assertThat(problems("servers", "127.0.0.1:1", "servers-refresh-interval", "5s"))
        .containsExactly(
            "shardwise.servers-refresh-interval: applies to shardwise.servers-file or"
                + " shardwise.servers-dns only");
    assertThat(problems("servers-dns", "127.0.0.1:1", "servers-refresh-interval", "0"))
        .containsExactly("shardwise.servers-refresh-interval: must be > 0 but was 0");
  }

  @Test
  void theWatcherThreadLivesAsLongAsTheClientWhicheverViewIsClosed() throws Exception {
    Path path = file("127.0.0.1:1\n127.0.0.1:2\n");
    ShardwiseConfig config =
        config("servers-file", path.toString(), "servers-refresh-interval", "20ms");
    long before = WatcherThreads.count();
    AsyncCacheClient<Object> client = config.build();
    assertThat(WatcherThreads.count()).isEqualTo(before + 1);
    client.close();
    await("the watcher stopped with the client", () -> WatcherThreads.count() == before);

    AsyncCacheClient<Object> again = config.build();
    assertThat(WatcherThreads.count()).isEqualTo(before + 1);
    again.sync().close();
    await("the watcher stopped with the blocking view", () -> WatcherThreads.count() == before);

    try (AsyncCacheClient<Object> plain = config("servers", "127.0.0.1:1").build()) {
      assertThat(plain.nodes()).hasSize(1);
      assertThat(WatcherThreads.count()).as("no source, no thread").isEqualTo(before);
    }
  }

  @Test
  void aChangedServersFileMovesTheClient() throws Exception {
    Path path = file("127.0.0.1:1\n127.0.0.1:2\n");
    try (AsyncCacheClient<Object> client =
        config("servers-file", path.toString(), "servers-refresh-interval", "20ms").build()) {
      Files.writeString(path, "127.0.0.1:1\n127.0.0.1:2\n127.0.0.1:3\n");
      await("the third server", () -> client.nodes().size() == 3);
      assertThat(client.nodes()).contains(Node.of("127.0.0.1", 3));
    }
  }

  @Test
  void aBadKeyStillFailsTheWholeConfiguration() {
    assertThatThrownBy(() -> config("servers-dns", "127.0.0.1:1", "servers-refersh-interval", "1s"))
        .hasMessageContaining("unknown key shardwise.servers-refersh-interval");
  }
}
