package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.core.RouterSpec;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.io.IOException;
import java.io.Serializable;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.AddrUtil;
import net.spy.memcached.KetamaConnectionFactory;
import net.spy.memcached.MemcachedClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Drop-in for a spymemcached application: data written by a plain spymemcached {@code
 * MemcachedClient} with {@code KetamaConnectionFactory} over 5 servers, with its default {@code
 * SerializingTranscoder}, is read back by Shardwise (ketama in {@code spymemcached} mode, {@code
 * Codecs.spymemcached()}) with every key a hit and every value equal; and the other way round.
 */
@Timeout(90)
class SpymemcachedDropInIT {

  private static final int KEYS = 5_000;

  static {
    // spymemcached's own logger prints every connection at INFO; use SLF4J (level warn) instead.
    System.setProperty(
        MemcachedBackend.SPYMEMCACHED_LOGGER_PROPERTY, MemcachedBackend.SPYMEMCACHED_SLF4J_LOGGER);
  }

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(5);

  /** A value type of the application, Java-serialized by spymemcached. */
  record Order(long id, String customer, List<String> lines) implements Serializable {}

  private MemcachedClient spymemcached;
  private AsyncCacheClient<Object> shardwise;

  @BeforeEach
  void open() throws IOException {
    CacheFleet fleet = CacheFleet.memcached(FLEET);
    fleet.reset();
    // The server list as a spymemcached application writes it: "host:port host:port ...".
    List<InetSocketAddress> addresses = AddrUtil.getAddresses(String.join(" ", FLEET.addresses()));
    spymemcached =
        SpymemcachedClients.connected(new MemcachedClient(new KetamaConnectionFactory(), addresses), addresses.size());
    shardwise =
        ready(
            fleet
                .builder(5)
                .router(RouterSpec.of("ketama").withKetamaCompatibility("spymemcached"))
                .codec(Codecs.spymemcached())
                .build());
  }

  @AfterEach
  void close() {
    if (spymemcached != null) {
      spymemcached.shutdown(5, TimeUnit.SECONDS);
    }
    if (shardwise != null) {
      shardwise.close();
    }
  }

  /** Strings, byte arrays, numbers of every boxed type, dates and serializable objects. */
  private static Map<String, Object> mixedValues(String prefix) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (int i = 0; i < KEYS; i++) {
      String key = prefix + ":" + i;
      Object value;
      switch (i % 9) {
        case 0:
          value = "string value " + i;
          break;
        case 1:
          value = ("bytes " + i).getBytes(StandardCharsets.UTF_8);
          break;
        case 2:
          value = (long) i * 1_000_003L;
          break;
        case 3:
          value = i;
          break;
        case 4:
          value = i * 0.5d;
          break;
        case 5:
          value = i % 2 == 0;
          break;
        case 6:
          value = new Date(1_600_000_000_000L + i);
          break;
        case 7:
          value = new Order(i, "customer-" + i, List.of("line-a", "line-" + i));
          break;
        default:
          value = "{\"json\": " + i + "}";
          break;
      }
      values.put(key, value);
    }
    return values;
  }

  private static void assertSameValues(Map<String, Object> actual, Map<String, Object> expected) {
    assertThat(actual).hasSameSizeAs(expected);
    List<String> different = new ArrayList<>();
    for (Map.Entry<String, Object> e : expected.entrySet()) {
      Object got = actual.get(e.getKey());
      boolean equal =
          e.getValue() instanceof byte[] bytes
              ? got instanceof byte[] gotBytes && Arrays.equals(bytes, gotBytes)
              : e.getValue().equals(got);
      if (!equal) {
        different.add(e.getKey() + ": wrote " + e.getValue() + " but read " + got);
      }
    }
    assertThat(different).isEmpty();
  }

  @Test
  void everyKeySpymemcachedWroteIsAHitWithAnEqualValueThroughShardwise() throws Exception {
    Map<String, Object> written = mixedValues("spy");
    List<Future<Boolean>> sets = new ArrayList<>();
    for (Map.Entry<String, Object> e : written.entrySet()) {
      sets.add(spymemcached.set(e.getKey(), 0, e.getValue()));
    }
    for (Future<Boolean> set : sets) {
      assertThat(set.get(30, TimeUnit.SECONDS)).isTrue();
    }

    MultiResult<Object> read = Await.result(shardwise.getMulti(written.keySet()));

    assertThat(read.errors()).isEmpty();
    assertThat(read.misses()).as("misses").isEmpty();
    assertSameValues(read.values(), written);
  }

  @Test
  void everyKeyShardwiseWroteIsAHitWithAnEqualValueThroughSpymemcached() {
    Map<String, Object> written = mixedValues("shardwise");
    assertThat(Await.result(shardwise.setMulti(written, Duration.ZERO)).errors()).isEmpty();

    Map<String, Object> read = spymemcached.getBulk(written.keySet());

    assertSameValues(read, written);
  }

  @Test
  void shardwiseNamesTheServerSpymemcachedsLocatorPicksForEveryKey() {
    for (int i = 0; i < 20_000; i++) {
      String key = "locate:" + i;
      InetSocketAddress spy =
          (InetSocketAddress) spymemcached.getNodeLocator().getPrimary(key).getSocketAddress();
      assertThat(shardwise.nodeFor(key).address())
          .as(key)
          .isEqualTo(spy.getHostString() + ":" + spy.getPort());
    }
  }
}
