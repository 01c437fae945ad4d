package io.shardwise.benchmarks.e2e;

import io.shardwise.core.RouterSpec;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.ConnectionFactory;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.internal.BulkFuture;

/**
 * Shardwise's layout with nothing of Shardwise's in the request path: one bare spymemcached
 * client per server (each with its own I/O thread, as the memcached backend has), keys placed by
 * the ketama router in spymemcached mode (the same servers as spymemcached's own ketama client),
 * a multi-get sent as one {@code asyncGetBulk} per server and the replies merged. Set beside
 * spymemcached's single client over all servers, it shows what the one-client-per-server layout
 * costs by itself; set beside Shardwise, what Shardwise adds to that layout.
 *
 * <p>With {@code copies} above 1 (the replicas scenarios' bare pair), a set goes to the key's first
 * {@code copies} servers of the router's preference list, all sent before waiting for any: what a
 * second copy costs bare spymemcached, beside what it costs Shardwise.
 */
final class SpymemcachedPerNodeContender implements Contender {

  private final List<MemcachedClient> clients = new ArrayList<>();
  private final List<InetSocketAddress> servers;
  private final Router router;
  private final long timeoutMillis;
  private final int copies;

  SpymemcachedPerNodeContender(List<InetSocketAddress> servers, Duration timeout) {
    this(servers, timeout, 1);
  }

  SpymemcachedPerNodeContender(List<InetSocketAddress> servers, Duration timeout, int copies) {
    this.servers = List.copyOf(servers);
    this.timeoutMillis = timeout.toMillis();
    this.copies = copies;
    List<Node> nodes = new ArrayList<>();
    for (InetSocketAddress s : servers) {
      nodes.add(Node.of(s.getAddress().getHostAddress(), s.getPort()));
    }
    this.router = RouterSpec.of("ketama").withKetamaCompatibility("spymemcached").build(nodes);
    ConnectionFactory factory =
        new ConnectionFactoryBuilder()
            .setProtocol(ConnectionFactoryBuilder.Protocol.TEXT)
            .setOpTimeout(timeoutMillis)
            .build();
    try {
      for (InetSocketAddress s : servers) {
        clients.add(new MemcachedClient(factory, List.of(s)));
      }
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("could not open spymemcached on " + servers, e);
    }
  }

  @Override
  public String name() {
    return copies == 1 ? "spymemcached, a client per server" : "spymemcached, " + copies + " copies";
  }

  private MemcachedClient clientOf(String key) {
    return clients.get(router.primary(key));
  }

  @Override
  public byte[] get(String key) {
    return (byte[]) clientOf(key).get(key);
  }

  @Override
  public void set(String key, byte[] value) throws Exception {
    if (copies == 1) {
      checkStored(key, clientOf(key).set(key, 0, value).get());
      return;
    }
    int[] targets = new int[copies];
    int n = router.replicas(router.hasher().hash(key), copies, targets);
    List<Future<Boolean>> replies = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      replies.add(clients.get(targets[i]).set(key, 0, value));
    }
    for (Future<Boolean> reply : replies) {
      checkStored(key, reply.get(timeoutMillis, TimeUnit.MILLISECONDS));
    }
  }

  private static void checkStored(String key, Boolean stored) {
    if (!Boolean.TRUE.equals(stored)) {
      throw new IllegalStateException("spymemcached did not store " + key);
    }
  }

  @Override
  public Future<?> getAsync(String key) {
    return clientOf(key).asyncGet(key);
  }

  @Override
  public Future<?> setAsync(String key, byte[] value) {
    return clientOf(key).set(key, 0, value);
  }

  @Override
  public Map<String, ?> getMulti(List<String> keys) throws Exception {
    List<List<String>> byServer = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      byServer.add(new ArrayList<>());
    }
    for (String key : keys) {
      byServer.get(router.primary(key)).add(key);
    }
    List<BulkFuture<Map<String, Object>>> replies = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      if (!byServer.get(i).isEmpty()) {
        replies.add(clients.get(i).asyncGetBulk(byServer.get(i)));
      }
    }
    Map<String, Object> found = new HashMap<>();
    for (BulkFuture<Map<String, Object>> reply : replies) {
      found.putAll(reply.get(timeoutMillis, TimeUnit.MILLISECONDS));
    }
    return found;
  }

  @Override
  public Optional<String> serverOf(String key) {
    InetSocketAddress address = servers.get(router.primary(key));
    return Optional.of(address.getAddress().getHostAddress() + ":" + address.getPort());
  }

  @Override
  public void close() {
    for (MemcachedClient c : clients) {
      c.shutdown(2, TimeUnit.SECONDS);
    }
  }
}
