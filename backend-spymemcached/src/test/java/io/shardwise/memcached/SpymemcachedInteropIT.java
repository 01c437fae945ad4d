package io.shardwise.memcached;

import static io.shardwise.memcached.Futures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import net.spy.memcached.MemcachedClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.provider.Arguments;

/**
 * An application moving from plain spymemcached to Shardwise (or back) keeps its cache: values a
 * {@link MemcachedClient} with its default transcoder wrote are read by a Shardwise connection with
 * {@link Codecs#spymemcached()}, and the other way round, over both of Shardwise's protocols.
 */
class SpymemcachedInteropIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(1);

  private static MemcachedBackend textBackend;
  private static MemcachedBackend binaryBackend;
  private static NodeConnection text;
  private static NodeConnection binary;
  private static MemcachedClient plain;

  @BeforeAll
  static void connect() throws IOException {
    Node node = Node.of(FLEET.server(0).host(), FLEET.server(0).port());
    textBackend = MemcachedBackend.create();
    binaryBackend =
        MemcachedBackend.create(
            MemcachedOptions.builder().protocol(MemcachedProtocol.BINARY).build());
    text = textBackend.connect(node);
    binary = binaryBackend.connect(node);
    plain = new MemcachedClient(FLEET.server(0).socketAddress());
  }

  @AfterAll
  static void close() {
    plain.shutdown(1, TimeUnit.SECONDS);
    textBackend.close();
    binaryBackend.close();
  }

  private static List<Object[]> vectors() {
    return SpymemcachedCodecCompatibilityTest.everything()
        .map(Arguments::get)
        .collect(Collectors.toList());
  }

  @Test
  void shardwiseReadsWhatPlainSpymemcachedWrote() throws Exception {
    List<Object[]> vectors = vectors();
    for (int i = 0; i < vectors.size(); i++) {
      assertThat(plain.set("plain:" + i, 0, vectors.get(i)[1]).get(5, TimeUnit.SECONDS)).isTrue();
    }
    for (NodeConnection connection : List.of(text, binary)) {
      for (int i = 0; i < vectors.size(); i++) {
        CachedValue stored = await(connection.get("plain:" + i));
        assertThat(Codecs.spymemcached().decode(stored))
            .as("%s via %s", vectors.get(i)[0], connection)
            .isEqualTo(vectors.get(i)[1]);
      }
    }
  }

  @Test
  void plainSpymemcachedReadsWhatShardwiseWrote() throws Exception {
    List<Object[]> vectors = vectors();
    for (NodeConnection connection : List.of(text, binary)) {
      for (int i = 0; i < vectors.size(); i++) {
        String key = "shardwise:" + i;
        await(connection.set(key, Codecs.spymemcached().encode(vectors.get(i)[1]), Duration.ZERO));
        assertThat(plain.asyncGet(key).get(5, TimeUnit.SECONDS))
            .as("%s via %s", vectors.get(i)[0], connection)
            .isEqualTo(vectors.get(i)[1]);
      }
    }
  }

  @Test
  void countersAreSharedToo() throws Exception {
    assertThat(await(text.incr("shared-counter", 1, 100, Duration.ZERO))).isEqualTo(100L);
    assertThat(plain.incr("shared-counter", 5)).isEqualTo(105L);
    assertThat(await(binary.incr("shared-counter", -1, 0, Duration.ZERO))).isEqualTo(104L);
    assertThat(plain.get("shared-counter")).isEqualTo("104");
  }
}
