package io.shardwise.core.config;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.ClientBuilder;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.core.sources.ServerListSource;
import io.shardwise.core.sources.ServerListWatcher;
import io.shardwise.spi.Backend;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * How a {@link ShardwiseConfig} becomes a client: the backend from its provider, the codec as a
 * codec of the value type asked for, every setting on a {@link ClientBuilder}, then the caller's
 * customizer; with a watched server source, a {@link ServerListWatcher} that stops when the
 * client closes ({@link WatchingBackend}). A build that fails closes the backend it created.
 */
final class ClientAssembly {

  private ClientAssembly() {}

  static <V> AsyncCacheClient<V> build(
      ShardwiseConfig config, Class<V> valueType, Consumer<? super ClientBuilder<V>> customizer) {
    Backend created = config.chosenBackend().create(config.timeout());
    Optional<ServerListSource> source = config.serversSource();
    WatchingBackend watching = source.isPresent() ? new WatchingBackend(created) : null;
    try {
      String codec = config.codecSet();
      String codecName = codec != null ? codec : created.storesFlags() ? "spymemcached" : "java";
      ValueCodec<V> typed = TypedCodec.of(Codecs.named(codecName), valueType);
      ClientBuilder<V> builder =
          ShardwiseClient.builder()
              .codec(typed)
              .backend(watching != null ? watching : created)
              .servers(config.servers())
              .router(config.router())
              .hashTag(config.hashTag())
              .replicas(config.replicas())
              .replicaReads(config.replicaReads())
              .replicaRepair(config.replicaRepair())
              .timeout(config.timeout())
              .connectWait(config.connectWait())
              .batchSize(config.batchSize())
              .failover(config.failover())
              .topology(config.topology())
              .bounded(config.bounded())
              .nearCache(config.nearCache());
      config.maxValueBytes().ifPresent(builder::maxValueBytes);
      customizer.accept(builder);
      AsyncCacheClient<V> client = builder.build();
      if (watching != null) {
        watching.stopWithThis(
            ServerListWatcher.start(client, source.get(), config.serversRefreshInterval()));
      }
      return client;
    } catch (RuntimeException | Error e) {
      created.close();
      throw e;
    }
  }
}
