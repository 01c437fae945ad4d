package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.MultiResult;
import io.shardwise.cli.ShardwiseCli;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.routing.ServerList;
import io.shardwise.testing.MemcachedItem;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.Twemproxy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.impl.KetamaMemcachedSessionLocator;
import net.rubyeye.xmemcached.transcoders.StringTranscoder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.JedisShardInfo;
import redis.clients.jedis.ShardedJedis;

/**
 * The compat router against the real peers: a real {@code nutcracker} for every twemproxy hash
 * and both distributions, libmemcached's tools, a program on the real libmemcached, the real
 * Xmemcached, spymemcached and Jedis {@code ShardedJedis} clients. Each peer writes 20,000 keys
 * (libmemcached's tools 2,000 with a hash other than the default); {@code shardwise detect} names
 * the peer's mode at 100% on what it wrote; Shardwise configured with the properties detect prints
 * reads every key with its value; and what Shardwise writes, the peer reads, every key.
 */
@Timeout(240)
class PeerCompatIT {

  private static final int KEYS = 20_000;

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(4);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(3);

  private static final ExecutorService WRITERS = Executors.newFixedThreadPool(16);

  @AfterAll
  static void stopWriters() {
    WRITERS.shutdownNow();
  }

  /** Keys a peer and Shardwise both accept, with non-ASCII ones (signed-char and UTF-16 quirks). */
  static Map<String, String> values(String prefix, int count) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String key = (i % 5 == 0 ? prefix + ":caf\u00e9:\u4e2d" : prefix + ":") + i;
      values.put(key, "value of " + key);
    }
    return values;
  }

  /**
   * A Shardwise client configured as a migrating user would: {@code shardwise detect --writer
   * <peer>} run on the fleet the peer wrote must name {@code mode} (with hash tag {@code tag}) at
   * 100% and print a configuration; the client is built from the {@code shardwise.*} lines it
   * prints (backend, servers, router, mode, hash tag, codec) and a timeout.
   */
  private static AsyncCacheClient<String> detected(String backend, String servers, String mode, String tag) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String writer = mode.substring(0, mode.indexOf(':'));
    int code =
        ShardwiseCli.run(
            new String[] {"detect", "--backend", backend, "--servers", servers, "--writer", writer, "--top", "1000"},
            new PrintWriter(out, true),
            new PrintWriter(err, true));
    String report = out.toString();
    assertThat(code).as("detect: %s%s", err, report).isZero();
    String name = "compat " + mode + (tag.isEmpty() ? "" : " (hash tag " + tag + ")");
    Matcher share =
        Pattern.compile("^\\s*([0-9.]+)%\\s+\\d+\\s+" + writer + "\\s+" + Pattern.quote(name) + "$", Pattern.MULTILINE)
            .matcher(report);
    assertThat(share.find()).as("detect lists %s:%n%s", name, report).isTrue();
    assertThat(share.group(1)).as("detect's share for %s:%n%s", name, report).isEqualTo("100.00");
    Map<String, String> settings = new LinkedHashMap<>();
    report.lines().filter(l -> l.startsWith("shardwise.")).forEach(
        line -> settings.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1)));
    assertThat(settings).as("detect's configuration:%n%s", report)
        .containsEntry("shardwise.backend", backend)
        .containsKeys("shardwise.servers", "shardwise.router", "shardwise.codec");
    assertThat(ServerList.parse(settings.get("shardwise.servers"))).isEqualTo(ServerList.parse(servers));
    settings.put("shardwise.timeout", CacheFleet.CLIENT_TIMEOUT.toMillis() + "ms");
    return ready(ShardwiseConfig.from(settings).build(String.class));
  }

  private static void assertAllHits(AsyncCacheClient<String> client, Map<String, String> written) {
    MultiResult<String> read = Await.result(client.getMulti(written.keySet()));
    assertThat(read.errors()).isEmpty();
    assertThat(read.misses()).as("keys Shardwise looks for on another server").isEmpty();
    assertThat(read.values()).isEqualTo(written);
  }

  private static void write(AsyncCacheClient<String> client, Map<String, String> values) {
    assertThat(Await.result(client.setMulti(values, Duration.ZERO)).errors()).isEmpty();
  }

  private static Map<String, byte[]> bytes(Map<String, String> values) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    values.forEach((k, v) -> out.put(k, v.getBytes(StandardCharsets.UTF_8)));
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"one_at_a_time", "md5", "crc16", "crc32", "crc32a", "fnv1_64", "fnv1a_64",
      "fnv1_32", "fnv1a_32", "hsieh", "murmur", "jenkins"})
  void twemproxyMemcachedEveryHashBothDistributions(String hash) {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    for (String distribution : List.of("ketama", "modula")) {
      fleet.reset();
      String mode = "twemproxy:" + hash + ":" + distribution;
      Map<String, String> byProxy = values("p-" + distribution, KEYS);
      Map<String, String> byShardwise = values("s-" + distribution, KEYS);
      try (Twemproxy proxy =
              Twemproxy.builder(MEMCACHED.servers()).hash(hash).distribution(distribution).start();
          RawMemcached raw = RawMemcached.through(proxy)) {
        raw.setAll(bytes(byProxy), 0);
        try (AsyncCacheClient<String> client = detected("memcached", fleet.serverList(4), mode, "")) {
          assertAllHits(client, byProxy);
          write(client, byShardwise);
        }
        Map<String, MemcachedItem> read = raw.getAll(byShardwise.keySet());
        Map<String, String> values = new HashMap<>();
        read.forEach((k, v) -> values.put(k, v.valueUtf8()));
        assertThat(values).as(mode).isEqualTo(byShardwise);
      }
    }
  }

  /**
   * twemproxy orders its servers by name (shorter first) and its modula table follows that order,
   * not the file's: named servers listed out of that order show it.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"modula", "ketama"})
  void twemproxyNamedServersOutOfOrder(String distribution) {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    List<String> names = List.of("zeta", "b", "alpha", "cc");
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      entries.add(names.get(i) + "=" + MEMCACHED.servers().get(i).address());
    }
    String mode = "twemproxy:fnv1a_64:" + distribution;
    Map<String, String> byProxy = values("n-" + distribution, KEYS);
    try (Twemproxy proxy = Twemproxy.builder(MEMCACHED.servers())
            .hash("fnv1a_64").distribution(distribution).serverNames(names).start();
        RawMemcached raw = RawMemcached.through(proxy)) {
      raw.setAll(bytes(byProxy), 0);
      try (AsyncCacheClient<String> client = detected("memcached", String.join(",", entries), mode, "")) {
        assertAllHits(client, byProxy);
      }
      for (int i = 0; i < names.size(); i++) {
        assertThat(fleet.rawGetAll(i, byProxy.keySet())).as("keys on %s", names.get(i)).isNotEmpty();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"fnv1a_64:ketama", "murmur:modula", "crc16:modula", "jenkins:ketama"})
  void twemproxyRedisWithAHashTag(String hashAndDistribution) {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    String[] hd = hashAndDistribution.split(":");
    String mode = "twemproxy:" + hashAndDistribution;
    Map<String, String> byProxy = new LinkedHashMap<>();
    for (int user = 0; user < KEYS / 2; user++) {
      byProxy.put("{user:" + user + "}:name", "name " + user);
      byProxy.put("plain:" + user, "plain " + user);
    }
    Map<String, String> byShardwise = new LinkedHashMap<>();
    for (int user = 0; user < KEYS / 2; user++) {
      byShardwise.put("{user:" + user + "}:cart", "cart " + user);
      byShardwise.put("other:" + user, "other " + user);
    }
    try (Twemproxy proxy =
            Twemproxy.builder(REDIS.servers()).redis(true).hash(hd[0]).distribution(hd[1]).hashTag("{}").start();
        RawRedis raw = RawRedis.through(proxy)) {
      raw.setAll(bytes(byProxy));
      try (AsyncCacheClient<String> client = detected("redis", fleet.serverList(3), mode, "{}")) {
        assertAllHits(client, byProxy);
        write(client, byShardwise);
      }
      Map<String, String> values = new HashMap<>();
      raw.getAll(byShardwise.keySet()).forEach((k, v) -> values.put(k, new String(v, StandardCharsets.UTF_8)));
      assertThat(values).as(mode).isEqualTo(byShardwise);
    }
  }

  /**
   * libmemcached's own tools (memccp, memccat from libmemcached-tools; the default modula
   * distribution with {@code --hash}) write and read the fleet.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"default", "crc", "fnv1a_64", "murmur3"})
  void libmemcachedToolsWithModula(String hash, @TempDir Path dir) throws Exception {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    String servers = fleet.serverList(4);
    String mode = "libmemcached:" + hash + ":modula";
    // A file per key for memccp: 20,000 for the default hash, 2,000 for the others (their hash
    // functions are pinned key by key by LibmemcachedVectorsTest), to keep the class short.
    int keys = hash.equals("default") ? KEYS : KEYS / 10;
    Map<String, String> byTool = new LinkedHashMap<>();
    for (int i = 0; i < keys; i++) {
      byTool.put((i % 5 == 0 ? "lm:caf\u00e9:" : "lm:") + i, "value " + i);
    }
    // The tools know no hash named "default": without --hash they use it.
    List<String> options = hash.equals("default") ? List.of() : List.of("--hash=" + hash);
    List<String> copy = new ArrayList<>(List.of(tool("memccp"), "--servers=" + servers));
    copy.addAll(options);
    for (Map.Entry<String, String> e : byTool.entrySet()) {
      Files.writeString(dir.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
      copy.add(dir.resolve(e.getKey()).toString());
    }
    run(copy);
    try (AsyncCacheClient<String> client = detected("memcached", servers, mode, "")) {
      assertAllHits(client, byTool);
      Map<String, String> byShardwise = new LinkedHashMap<>();
      for (int i = 0; i < keys; i++) {
        byShardwise.put("sw:" + i, "from shardwise " + i);
      }
      write(client, byShardwise);
      List<String> cat = new ArrayList<>(List.of(tool("memccat"), "--servers=" + servers));
      cat.addAll(options);
      cat.addAll(byShardwise.keySet());
      assertThat(run(cat)).as(mode).isEqualTo(String.join("\n", byShardwise.values()) + "\n");
    }
  }

  /**
   * A program on the real libmemcached ({@code lmorder.c}, kept with ring-ketama's libmemcached
   * vectors) adds the servers, sets a consistent distribution and only then the hash: libmemcached
   * keeps the continuum it built with its default hash and hashes the keys with the new one.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ketama=1 hash=fnv1a_32", "distribution=consistent hash=jenkins"})
  void libmemcachedWithTheHashSetAfterTheServersAndTheDistribution(String steps, @TempDir Path dir)
      throws Exception {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    String servers = fleet.serverList(4);
    String hash = steps.substring(steps.lastIndexOf('=') + 1);
    String mode = "libmemcached:" + hash + ":consistent:points=default";
    List<String> lmorder = new ArrayList<>(List.of(libmemcachedProgram(dir), "servers=" + servers));
    lmorder.addAll(List.of(steps.split(" ")));
    Map<String, String> byPeer = values("lm-" + hash, KEYS);
    StringBuilder lines = new StringBuilder();
    byPeer.forEach((k, v) -> lines.append(k).append('\t').append(v).append('\n'));
    run(append(lmorder, "set"), dir, lines.toString());
    try (AsyncCacheClient<String> client = detected("memcached", servers, mode, "")) {
      assertAllHits(client, byPeer);
      Map<String, String> byShardwise = values("lms-" + hash, KEYS);
      write(client, byShardwise);
      String read = run(append(lmorder, "get"), dir, String.join("\n", byShardwise.keySet()) + "\n");
      assertThat(read).as(mode).isEqualTo(String.join("\n", byShardwise.values()) + "\n");
    }
  }

  /** Compiles {@code lmorder.c} against the installed libmemcached into {@code dir}. */
  private static String libmemcachedProgram(Path dir) throws Exception {
    Path source = Path.of("..", "ring-ketama", "src", "test", "resources", "peer-vectors", "libmemcached", "lmorder.c");
    Path program = dir.resolve("lmorder");
    Process gcc = new ProcessBuilder("gcc", "-O1", "-o", program.toString(), source.toString(), "-lmemcached")
        .redirectErrorStream(true).start();
    String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(gcc.waitFor())
        .as("gcc %s (install gcc and libmemcached-dev; ./test.sh does): %s", source, out)
        .isZero();
    return program.toString();
  }

  private static List<String> append(List<String> command, String last) {
    List<String> all = new ArrayList<>(command);
    all.add(last);
    return all;
  }

  /** The libmemcached tool: Debian names memcp, memcat memccp, memccat. */
  private static String tool(String name) {
    for (String dir : List.of("/usr/bin", "/usr/local/bin")) {
      for (String candidate : List.of(name, name.replace("memc", "mem"))) {
        if (Files.isExecutable(Path.of(dir, candidate))) {
          return Path.of(dir, candidate).toString();
        }
      }
    }
    throw new IllegalStateException(name + " not found: install libmemcached-tools (./test.sh does)");
  }

  private static String run(List<String> command) throws Exception {
    return run(new ProcessBuilder(command));
  }

  /** Runs {@code command} with {@code input} (through a file in {@code dir}) as its standard input. */
  private static String run(List<String> command, Path dir, String input) throws Exception {
    Path in = Files.createTempFile(dir, "input", ".txt");
    Files.writeString(in, input, StandardCharsets.UTF_8);
    return run(new ProcessBuilder(command).redirectInput(in.toFile()));
  }

  private static String run(ProcessBuilder command) throws Exception {
    Process p = command.redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("%s: %s", command.command().get(0), out).isZero();
    return out;
  }

  @Test
  void xmemcachedArrayAndKetamaLocatorsWithAndWithoutWeights() throws Exception {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    List<InetSocketAddress> addresses = new ArrayList<>();
    List<String> weighted = new ArrayList<>();
    int[] weights = {1, 3, 2, 1};
    for (var server : MEMCACHED.servers()) {
      addresses.add(new InetSocketAddress(server.host(), server.port()));
      weighted.add(server.address() + ":" + weights[weighted.size()]);
    }
    for (String locator : List.of("array", "ketama", "array-weighted", "ketama-weighted")) {
      fleet.reset();
      boolean withWeights = locator.endsWith("-weighted");
      XMemcachedClientBuilder builder =
          withWeights ? new XMemcachedClientBuilder(addresses, weights) : new XMemcachedClientBuilder(addresses);
      if (locator.startsWith("ketama")) {
        builder.setSessionLocator(new KetamaMemcachedSessionLocator());
      }
      builder.setTranscoder(new StringTranscoder());
      MemcachedClient xmemcached = builder.build();
      String mode = locator.startsWith("ketama") ? "xmemcached:ketama:ketama_hash" : "xmemcached:array:native_hash";
      String servers = withWeights ? String.join(",", weighted) : fleet.serverList(4);
      Map<String, String> byPeer = values("x-" + locator, KEYS);
      // Xmemcached's set waits for its reply: from several threads, as an application would.
      List<Callable<Boolean>> sets = new ArrayList<>();
      byPeer.forEach((k, v) -> sets.add(() -> xmemcached.set(k, 0, v)));
      for (Future<Boolean> set : WRITERS.invokeAll(sets)) {
        assertThat(set.get()).isTrue();
      }
      try (AsyncCacheClient<String> client = detected("memcached", servers, mode, "")) {
        assertAllHits(client, byPeer);
        Map<String, String> byShardwise = values("xs-" + locator, KEYS);
        write(client, byShardwise);
        Map<String, String> read = xmemcached.get(byShardwise.keySet());
        assertThat(read).as(mode).isEqualTo(byShardwise);
      } finally {
        xmemcached.shutdown();
      }
    }
  }

  @Test
  void spymemcachedDefaultClientAndConsistentLocatorWithItsDefaultHash() throws Exception {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    List<InetSocketAddress> addresses = new ArrayList<>();
    for (var server : MEMCACHED.servers()) {
      addresses.add(new InetSocketAddress(server.host(), server.port()));
    }
    for (String mode : List.of("spymemcached:array_mod:native_hash",
        "spymemcached:consistent:native_hash:spymemcached")) {
      fleet.reset();
      net.spy.memcached.MemcachedClient spy =
          SpymemcachedClients.connected(
              mode.contains("array_mod")
                  ? new net.spy.memcached.MemcachedClient(addresses) // the default: ArrayModNodeLocator, NATIVE_HASH
                  : new net.spy.memcached.MemcachedClient(
                      new net.spy.memcached.ConnectionFactoryBuilder()
                          .setLocatorType(net.spy.memcached.ConnectionFactoryBuilder.Locator.CONSISTENT)
                          .build(),
                      addresses),
              addresses.size());
      Map<String, String> byPeer = values("sp-" + mode.length(), KEYS);
      List<Future<Boolean>> sets = new ArrayList<>();
      byPeer.forEach((k, v) -> sets.add(spy.set(k, 0, v)));
      for (Future<Boolean> f : sets) {
        assertThat(f.get()).isTrue();
      }
      try (AsyncCacheClient<String> client = detected("memcached", fleet.serverList(4), mode, "")) {
        assertAllHits(client, byPeer);
        Map<String, String> byShardwise = values("sps-" + mode.length(), KEYS);
        write(client, byShardwise);
        Map<String, Object> read = spy.getBulk(byShardwise.keySet());
        assertThat(read).as(mode).isEqualTo(new HashMap<String, Object>(byShardwise));
      } finally {
        spy.shutdown();
      }
    }
  }

  @Test
  @SuppressWarnings("deprecation") // ShardedJedis and JedisShardInfo are deprecated in Jedis 3
  void jedisShardedJedis() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    List<JedisShardInfo> shards = new ArrayList<>();
    List<String> servers = new ArrayList<>();
    int i = 0;
    for (var server : REDIS.servers()) {
      int weight = 1 + i++ % 2;
      shards.add(new JedisShardInfo(server.host(), server.port(), 2000, 2000, weight));
      servers.add(server.address() + ":" + weight);
    }
    try (ShardedJedis jedis = new ShardedJedis(shards)) {
      Map<String, String> byPeer = values("j", KEYS);
      byPeer.forEach(jedis::set);
      Map<String, String> byShardwise = values("js", KEYS);
      try (AsyncCacheClient<String> client =
          detected("redis", String.join(",", servers), "jedis:sharded:murmur_hash", "")) {
        assertAllHits(client, byPeer);
        write(client, byShardwise);
      }
      for (Map.Entry<String, String> e : byShardwise.entrySet()) {
        assertThat(jedis.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }
    }
  }
}
