package io.shardwise.benchmarks.e2e;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import io.shardwise.core.RouterSpec;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Bare Lettuce sharded by hand, the way a user without Shardwise would lay it out: one {@link
 * RedisClient} (as Shardwise's Redis backend has) and, per server, one {@link
 * StatefulRedisConnection} of {@code byte[]} keys and values shared by every thread. Keys are
 * placed by a router built from the same {@link RouterSpec} as the Shardwise side's, so that both
 * put every key on the same server. A multi-get groups its keys by server, sends one async {@code
 * MGET} per server, all before waiting for any, then waits for all of them and merges the hits.
 * The connections get what {@link LettuceContender}'s does: RESP2 and the same command timeout (on
 * Lettuce's timer and on the URI). Keys are turned into UTF-8 bytes once per call and key.
 *
 * <p>With {@code copies} above 1 (the replicas scenarios' bare pair), a set goes to the key's first
 * {@code copies} servers of the router's preference list, all sent before waiting for any: what a
 * second copy costs bare Lettuce, beside what it costs Shardwise.
 */
final class LettucePerNodeContender implements Contender {

  private final RedisClient client;
  private final List<StatefulRedisConnection<byte[], byte[]>> connections = new ArrayList<>();
  private final List<RedisCommands<byte[], byte[]>> sync = new ArrayList<>();
  private final List<RedisAsyncCommands<byte[], byte[]>> async = new ArrayList<>();
  private final List<String> addresses = new ArrayList<>();
  private final Router router;
  private final long timeoutMillis;
  private final int copies;

  LettucePerNodeContender(List<InetSocketAddress> servers, RouterSpec spec, Duration timeout) {
    this(servers, spec, timeout, 1);
  }

  LettucePerNodeContender(
      List<InetSocketAddress> servers, RouterSpec spec, Duration timeout, int copies) {
    this.timeoutMillis = timeout.toMillis();
    this.copies = copies;
    List<Node> nodes = new ArrayList<>();
    for (InetSocketAddress s : servers) {
      nodes.add(Node.of(s.getHostString(), s.getPort()));
      addresses.add(s.getHostString() + ":" + s.getPort());
    }
    this.router = spec.build(nodes);
    client = RedisClient.create();
    client.setOptions(
        ClientOptions.builder()
            .protocolVersion(ProtocolVersion.RESP2)
            .timeoutOptions(TimeoutOptions.enabled(timeout))
            .build());
    try {
      for (InetSocketAddress s : servers) {
        RedisURI uri =
            RedisURI.builder()
                .withHost(s.getHostString())
                .withPort(s.getPort())
                .withTimeout(timeout)
                .build();
        StatefulRedisConnection<byte[], byte[]> connection =
            client.connect(ByteArrayCodec.INSTANCE, uri);
        connections.add(connection);
        sync.add(connection.sync());
        async.add(connection.async());
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  @Override
  public String name() {
    return copies == 1 ? "Lettuce, a connection per server" : "Lettuce, " + copies + " copies";
  }

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public byte[] get(String key) {
    byte[] k = bytes(key);
    return sync.get(router.primary(k)).get(k);
  }

  @Override
  public void set(String key, byte[] value) throws Exception {
    byte[] k = bytes(key);
    if (copies == 1) {
      checkSet(key, sync.get(router.primary(k)).set(k, value));
      return;
    }
    int[] servers = new int[copies];
    int n = router.replicas(router.hasher().hash(k), copies, servers);
    List<RedisFuture<String>> replies = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      replies.add(async.get(servers[i]).set(k, value));
    }
    for (RedisFuture<String> reply : replies) {
      checkSet(key, reply.get(timeoutMillis, TimeUnit.MILLISECONDS));
    }
  }

  private static void checkSet(String key, String reply) {
    if (!"OK".equals(reply)) {
      throw new IllegalStateException("SET " + key + " replied " + reply);
    }
  }

  @Override
  public Future<?> getAsync(String key) {
    byte[] k = bytes(key);
    return async.get(router.primary(k)).get(k);
  }

  @Override
  public Future<?> setAsync(String key, byte[] value) {
    byte[] k = bytes(key);
    return async.get(router.primary(k)).set(k, value);
  }

  @Override
  public Map<String, ?> getMulti(List<String> keys) throws Exception {
    int n = async.size();
    List<List<String>> names = new ArrayList<>(n);
    List<List<byte[]>> keyBytes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      names.add(new ArrayList<>());
      keyBytes.add(new ArrayList<>());
    }
    for (String key : keys) {
      byte[] k = bytes(key);
      int server = router.primary(k);
      names.get(server).add(key);
      keyBytes.get(server).add(k);
    }
    List<RedisFuture<List<KeyValue<byte[], byte[]>>>> replies = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      List<byte[]> share = keyBytes.get(i);
      replies.add(share.isEmpty() ? null : async.get(i).mget(share.toArray(new byte[0][])));
    }
    Map<String, byte[]> found = new HashMap<>(keys.size() * 4 / 3 + 1);
    for (int i = 0; i < n; i++) {
      RedisFuture<List<KeyValue<byte[], byte[]>>> reply = replies.get(i);
      if (reply == null) {
        continue;
      }
      List<KeyValue<byte[], byte[]>> values = reply.get(timeoutMillis, TimeUnit.MILLISECONDS);
      List<String> share = names.get(i);
      for (int j = 0; j < values.size(); j++) {
        KeyValue<byte[], byte[]> value = values.get(j);
        if (value.hasValue()) {
          found.put(share.get(j), value.getValue());
        }
      }
    }
    return found;
  }

  @Override
  public Optional<String> serverOf(String key) {
    return Optional.of(addresses.get(router.primary(bytes(key))));
  }

  @Override
  public void close() {
    try {
      for (StatefulRedisConnection<byte[], byte[]> c : connections) {
        c.close();
      }
    } finally {
      client.shutdown();
    }
  }
}
