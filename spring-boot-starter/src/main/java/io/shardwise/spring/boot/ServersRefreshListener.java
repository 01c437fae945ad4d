package io.shardwise.spring.boot;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.core.sources.ServerListUpdater;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.SettingsReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Moves the starter's client to a refreshed {@code shardwise.servers} without recreating it. Spring
 * Cloud publishes an {@code EnvironmentChangeEvent} after a refresh ({@code /actuator/refresh}, a
 * Config Server or Kubernetes ConfigMap reload); this listener recognises it by its class name, so
 * the starter does not depend on Spring Cloud, reads the {@code shardwise.*} properties again and
 * hands a changed server list to {@link AsyncCacheClient#updateServers} through a {@link
 * ServerListUpdater}: a bad list is logged at WARN on {@code io.shardwise.topology} and the list in
 * force stays. Every other changed {@code shardwise.*} key is read at start-up only, and says so
 * at WARN, once per key and value; so does {@code shardwise.servers} when the servers come from
 * {@code shardwise.servers-file} or {@code shardwise.servers-dns}.
 */
final class ServersRefreshListener implements ApplicationListener<ApplicationEvent> {

  /** Spring Cloud Context's event, published with the keys that a refresh changed. */
  static final String ENVIRONMENT_CHANGE_EVENT =
      "org.springframework.cloud.context.environment.EnvironmentChangeEvent";

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.topology");
  private static final String SERVERS = SettingsReader.normalize(ShardwiseConfig.SERVERS);
  private static final String ORIGIN =
      "property " + ShardwiseConfig.PREFIX + ShardwiseConfig.SERVERS;

  private final Environment environment;
  private final Supplier<AsyncCacheClient<?>> client;
  private final boolean serversFromProperty;
  private final Set<String> warned = new HashSet<>();
  private Map<String, Map.Entry<String, String>> seen;
  private ServerListUpdater updater;

  /**
   * @param config the configuration the client was built from
   * @param client the client, looked up at the first refresh
   */
  ServersRefreshListener(
      Environment environment, ShardwiseConfig config, Supplier<AsyncCacheClient<?>> client) {
    this.environment = Objects.requireNonNull(environment, "environment");
    this.client = Objects.requireNonNull(client, "client");
    this.serversFromProperty = config.serversSource().isEmpty();
    this.seen = read();
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (ENVIRONMENT_CHANGE_EVENT.equals(event.getClass().getName())) {
      refresh();
    }
  }

  /** Reads the properties again and applies a changed server list. */
  synchronized void refresh() {
    Map<String, Map.Entry<String, String>> now = read();
    Set<String> keys = new HashSet<>(seen.keySet());
    keys.addAll(now.keySet());
    Map<String, Map.Entry<String, String>> before = seen;
    seen = now;
    for (String key : keys) {
      Map.Entry<String, String> was = before.get(key);
      Map.Entry<String, String> is = now.get(key);
      String wasValue = was == null ? null : was.getValue();
      String isValue = is == null ? null : is.getValue();
      if (Objects.equals(wasValue, isValue)) {
        continue;
      }
      String written = ShardwiseConfig.PREFIX + (is != null ? is.getKey() : was.getKey());
      if (key.equals(SERVERS) && serversFromProperty) {
        applyServers(isValue);
      } else if (warned.add(key + '\0' + isValue)) {
        String shown =
            isValue == null
                ? "was removed"
                : "changed to '"
                    + (SettingsReader.looksSecret(written) ? SettingsReader.MASK : isValue)
                    + "'";
        LOG.warn(
            "{} {} but is read at start-up only; restart the application to apply it",
            written,
            shown);
      }
    }
  }

  private void applyServers(String text) {
    if (updater == null) {
      updater = new ServerListUpdater(client.get());
    }
    if (text == null) {
      updater.refuse(ORIGIN, "the property was removed; the servers stay as they are");
      return;
    }
    try {
      updater.offer(ORIGIN, ServerList.parse(text));
    } catch (IllegalArgumentException e) {
      updater.refuse(ORIGIN, e.getMessage());
    }
  }

  /** Normalized key to (key as written, value); a key whose placeholder fails is left out. */
  private Map<String, Map.Entry<String, String>> read() {
    Map<String, Map.Entry<String, String>> out = new LinkedHashMap<>();
    ShardwiseSettings.properties(environment, new HashSet<>(), new ArrayList<>())
        .forEach((k, v) -> out.put(SettingsReader.normalize(k), Map.entry(k, v)));
    return out;
  }
}
