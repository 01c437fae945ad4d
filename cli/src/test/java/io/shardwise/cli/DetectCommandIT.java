package io.shardwise.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.MultiResult;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.MemcachedTextClient;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.RespClient;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import io.shardwise.testing.Twemproxy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code shardwise detect} on real fleets written through a real {@code nutcracker}: it names the
 * writer's mode at 100%, a Shardwise client configured with the properties it prints reads every
 * key, it reports both modes of a fleet written by two, and it leaves every server's item count as
 * it was.
 */
@Timeout(120)
class DetectCommandIT {

  private static final Duration IO = Duration.ofSeconds(5);

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(3);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(3);

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void flush() {
    for (MemcachedServer s : MEMCACHED.servers()) {
      new MemcachedTextClient(s.host(), s.port(), IO).flushAll();
    }
    for (RedisServer s : REDIS.servers()) {
      new RespClient(s.host(), s.port(), IO).flushAll();
    }
  }

  private int detect(String backend, List<? extends ServerHandle> servers, String... more) {
    List<String> args = new ArrayList<>(List.of("detect", "--backend", backend, "--servers",
        servers.stream().map(ServerHandle::address).collect(Collectors.joining(","))));
    args.addAll(List.of(more));
    return ShardwiseCli.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private static Map<String, String> writeThrough(Twemproxy proxy, String prefix, int count) {
    MemcachedTextClient client = proxy.memcachedClient();
    Map<String, String> written = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      client.set(prefix + i, 0, ("v" + i).getBytes(StandardCharsets.UTF_8));
      written.put(prefix + i, "v" + i);
    }
    return written;
  }

  private static List<Long> memcachedItems() {
    List<Long> counts = new ArrayList<>();
    for (MemcachedServer s : MEMCACHED.servers()) {
      counts.add(Long.parseLong(new MemcachedTextClient(s.host(), s.port(), IO).stats().get("curr_items")));
    }
    return counts;
  }

  private static List<Long> redisKeys() {
    List<Long> counts = new ArrayList<>();
    for (RedisServer s : REDIS.servers()) {
      counts.add(new RespClient(s.host(), s.port(), IO).dbSize());
    }
    return counts;
  }

  /**
   * Builds a Shardwise client from the properties detect printed after "best:" and reads {@code
   * expected} back: every key a hit with its value.
   */
  private void readBackWithTheDetectedProperties(String backend, List<? extends ServerHandle> servers,
      Map<String, String> expected) throws Exception {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("shardwise.backend", backend);
    settings.put("shardwise.servers", servers.stream().map(ServerHandle::address).collect(Collectors.joining(",")));
    settings.put("shardwise.codec", "utf8");
    String text = out.toString();
    for (String line : text.substring(text.indexOf("\nbest: ") + 1).split("\n")) {
      if (line.startsWith("shardwise.")) {
        settings.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
      }
    }
    assertThat(settings).containsKey("shardwise.router");
    try (AsyncCacheClient<String> client = ShardwiseConfig.from(settings).build(String.class)) {
      MultiResult<String> read = client.getMulti(expected.keySet()).get(30, TimeUnit.SECONDS);
      assertThat(read.errors()).isEmpty();
      assertThat(read.misses()).isEmpty();
      assertThat(read.values()).isEqualTo(expected);
    }
  }

  /** The share printed for {@code mode}, or -1 if it is not among the printed modes. */
  private double share(String mode) {
    Matcher m = Pattern.compile("^\\s*([0-9.]+)%\\s+\\d+\\s+" + Pattern.quote(mode) + "$", Pattern.MULTILINE)
        .matcher(out.toString());
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  @Test
  void namesTheModeOfAFleetWrittenByTwemproxyAndChangesNothing() throws Exception {
    Map<String, String> written;
    try (Twemproxy proxy = Twemproxy.builder(MEMCACHED.servers()).hash("fnv1a_64").distribution("ketama").start()) {
      written = writeThrough(proxy, "user:", 3_000);
    }
    List<Long> before = memcachedItems();
    assertThat(before.stream().mapToLong(Long::longValue).sum()).isEqualTo(3_000);

    int code = detect("memcached", MEMCACHED.servers());

    assertThat(err.toString()).isEmpty();
    assertThat(code).isZero();
    assertThat(out.toString()).startsWith("sampled 3000 keys: ");
    assertThat(share("compat twemproxy:fnv1a_64:ketama")).isEqualTo(100.0);
    assertThat(out.toString())
        .contains("best: compat twemproxy:fnv1a_64:ketama\n"
            + "shardwise.router=compat\n"
            + "shardwise.compat.mode=twemproxy:fnv1a_64:ketama\n");
    assertThat(memcachedItems()).isEqualTo(before);
    readBackWithTheDetectedProperties("memcached", MEMCACHED.servers(), written);
  }

  @Test
  void reportsBothModesOfAFleetWrittenByTwo() {
    try (Twemproxy a = Twemproxy.builder(MEMCACHED.servers()).hash("murmur").distribution("ketama").start()) {
      writeThrough(a, "old:", 2_000);
    }
    try (Twemproxy b = Twemproxy.builder(MEMCACHED.servers()).hash("md5").distribution("ketama").start()) {
      writeThrough(b, "new:", 2_000);
    }
    List<Long> before = memcachedItems();

    assertThat(detect("memcached", MEMCACHED.servers(), "--top", "10")).isZero();

    // Each mode places its own half and the third or so of the other half that it happens to
    // put on the same server.
    double murmur = share("compat twemproxy:murmur:ketama");
    double md5 = share("compat twemproxy:md5:ketama");
    assertThat(murmur).isBetween(50.0, 90.0);
    assertThat(md5).isBetween(50.0, 90.0);
    assertThat(out.toString()).contains("No mode places every sampled key");
    assertThat(memcachedItems()).isEqualTo(before);
  }

  @Test
  void findsARedisFleetWithItsHashTag() throws Exception {
    Map<String, String> written = new LinkedHashMap<>();
    try (Twemproxy proxy = Twemproxy.builder(REDIS.servers()).redis(true).hash("crc32a")
        .distribution("modula").hashTag("{}").start()) {
      RespClient client = proxy.redisClient();
      for (int user = 0; user < 1_000; user++) {
        client.set("{user:" + user + "}:name", "n".getBytes(StandardCharsets.UTF_8));
        client.set("{user:" + user + "}:cart", "c".getBytes(StandardCharsets.UTF_8));
        written.put("{user:" + user + "}:name", "n");
        written.put("{user:" + user + "}:cart", "c");
      }
    }
    List<Long> before = redisKeys();

    assertThat(detect("redis", REDIS.servers())).isZero();

    assertThat(share("compat twemproxy:crc32a:modula (hash tag {})")).isEqualTo(100.0);
    assertThat(out.toString()).contains("shardwise.compat.mode=twemproxy:crc32a:modula\nshardwise.hash-tag={}\n");
    assertThat(redisKeys()).isEqualTo(before);
    readBackWithTheDetectedProperties("redis", REDIS.servers(), written);
  }

  @Test
  void anUnreachableServerIsAnErrorNamingIt() {
    assertThat(ShardwiseCli.run(new String[] {"detect", "--backend", "memcached", "--servers", "127.0.0.1:1"},
        new PrintWriter(out, true), new PrintWriter(err, true))).isEqualTo(ShardwiseCli.EXIT_USAGE);
    assertThat(err.toString()).startsWith("shardwise: 127.0.0.1:1: ");
  }
}
