package io.shardwise.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.ConnectionFactory;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.KetamaConnectionFactory;
import net.spy.memcached.MemcachedClient;

/**
 * A bare spymemcached {@link MemcachedClient} as an application would use it: default settings
 * and default transcoder (which stores a {@code byte[]} as is, with the flags Shardwise's {@code
 * bytes} codec writes), text protocol, and only the operation timeout set to the one Shardwise
 * gets.
 */
final class SpymemcachedContender implements Contender {

  private final String name;
  private final MemcachedClient client;

  private SpymemcachedContender(String name, MemcachedClient client) {
    this.name = name;
    this.client = client;
  }

  /** One client on one server, from {@link ConnectionFactoryBuilder}'s defaults. */
  static SpymemcachedContender single(InetSocketAddress server, Duration timeout) {
    ConnectionFactory factory =
        new ConnectionFactoryBuilder()
            .setProtocol(ConnectionFactoryBuilder.Protocol.TEXT)
            .setOpTimeout(timeout.toMillis())
            .build();
    return new SpymemcachedContender("spymemcached", open(factory, List.of(server)));
  }

  /** One client over every server, placing keys with {@link KetamaConnectionFactory}. */
  static SpymemcachedContender ketama(List<InetSocketAddress> servers, Duration timeout) {
    long timeoutMillis = timeout.toMillis();
    ConnectionFactory factory =
        new KetamaConnectionFactory() {
          @Override
          public long getOperationTimeout() {
            return timeoutMillis;
          }
        };
    return new SpymemcachedContender("spymemcached ketama", open(factory, servers));
  }

  private static MemcachedClient open(ConnectionFactory factory, List<InetSocketAddress> servers) {
    try {
      return new MemcachedClient(factory, new ArrayList<>(servers));
    } catch (IOException e) {
      throw new UncheckedIOException("could not open spymemcached on " + servers, e);
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public byte[] get(String key) {
    return (byte[]) client.get(key);
  }

  @Override
  public void set(String key, byte[] value) throws Exception {
    if (!Boolean.TRUE.equals(client.set(key, 0, value).get())) {
      throw new IllegalStateException("spymemcached did not store " + key);
    }
  }

  @Override
  public Future<?> getAsync(String key) {
    return client.asyncGet(key);
  }

  @Override
  public Future<?> setAsync(String key, byte[] value) {
    return client.set(key, 0, value);
  }

  @Override
  public Map<String, ?> getMulti(List<String> keys) {
    return client.getBulk(keys);
  }

  @Override
  public Optional<String> serverOf(String key) {
    InetSocketAddress address =
        (InetSocketAddress) client.getNodeLocator().getPrimary(key).getSocketAddress();
    return Optional.of(address.getAddress().getHostAddress() + ":" + address.getPort());
  }

  @Override
  public void close() {
    client.shutdown(2, TimeUnit.SECONDS);
  }
}
