package io.shardwise.core.config;

import static io.shardwise.core.config.ConfigKeys.SERVERS_REFRESH_INTERVAL_KEY;
import static io.shardwise.core.config.ShardwiseConfig.*;

import io.shardwise.core.internal.route.ServerListChecks;
import io.shardwise.core.sources.ServerListSource;
import io.shardwise.core.sources.ServerListWatcher;
import io.shardwise.core.sources.ServersDns;
import io.shardwise.core.sources.ServersFile;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.SettingsReader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where the servers come from: {@code shardwise.servers}, a watched file ({@code servers-file}) or
 * a DNS name ({@code servers-dns}), exactly one of them, read once now; and how often a file or
 * name is read again. Problems go to the reader.
 */
final class ServerSource {

  List<Node> servers;
  Path file;
  String dns;
  Duration refreshInterval;

  ServerSource(SettingsReader r) {
    List<String> set =
        List.of(SERVERS, SERVERS_FILE, SERVERS_DNS).stream().filter(r::isSet).toList();
    if (set.size() > 1) {
      r.problem(
          set.get(1),
          "cannot be combined with "
              + PREFIX
              + set.get(0)
              + "; set exactly one of "
              + PREFIX
              + SERVERS
              + ", "
              + PREFIX
              + SERVERS_FILE
              + ", "
              + PREFIX
              + SERVERS_DNS);
    }
    String source = set.isEmpty() ? SERVERS : set.get(0);
    Duration defaultRefresh =
        SERVERS_DNS.equals(source)
            ? ServerListWatcher.DEFAULT_DNS_INTERVAL
            : ServerListWatcher.DEFAULT_FILE_INTERVAL;
    refreshInterval = SERVERS_REFRESH_INTERVAL_KEY.duration(r, defaultRefresh);
    if (SERVERS.equals(source) && r.isSet(SERVERS_REFRESH_INTERVAL)) {
      r.problem(
          SERVERS_REFRESH_INTERVAL,
          "applies to " + PREFIX + SERVERS_FILE + " or " + PREFIX + SERVERS_DNS + " only");
    }
    switch (source) {
      case SERVERS_FILE:
        readServersFile(r, r.text(SERVERS_FILE).orElseThrow());
        break;
      case SERVERS_DNS:
        readServersDns(r, r.text(SERVERS_DNS).orElseThrow());
        break;
      default:
        readServerList(r);
        break;
    }
    set.stream().skip(1).forEach(r::text); // reported above, not as unknown
    if (servers != null) {
      checkAddresses(r, source);
    }
  }

  private void readServerList(SettingsReader r) {
    Optional<String> value =
        r.required(
            SERVERS,
            "expected a comma-separated list such as 10.0.0.1:11211,10.0.0.2:11211, or "
                + PREFIX
                + SERVERS_FILE
                + " or "
                + PREFIX
                + SERVERS_DNS);
    if (value.isEmpty()) {
      return;
    }
    servers = parse(r, value.get());
  }

  /** The list of {@code shardwise.servers}, set: null after a problem, which goes to the reader. */
  static List<Node> serverList(SettingsReader r) {
    return parse(r, r.text(SERVERS).orElseThrow());
  }

  private static List<Node> parse(SettingsReader r, String value) {
    try {
      ServerListChecks.checkNoEmptyEntry(value);
      return ServerList.parse(value);
    } catch (IllegalArgumentException e) {
      r.problem(SERVERS, e.getMessage());
      return null;
    }
  }

  private void readServersFile(SettingsReader r, String value) {
    Path file;
    try {
      file = Path.of(value);
    } catch (java.nio.file.InvalidPathException e) {
      r.problem(SERVERS_FILE, "'" + value + "' is not a path: " + e.getMessage());
      return;
    }
    try {
      servers = ServersFile.readNow(file);
      this.file = file;
    } catch (IOException e) {
      r.problem(SERVERS_FILE, "'" + value + "' cannot be read: " + e);
    } catch (IllegalArgumentException e) {
      r.problem(SERVERS_FILE, "'" + value + "': " + e.getMessage());
    }
  }

  private void readServersDns(SettingsReader r, String value) {
    ServersDns dns;
    try {
      dns = ServersDns.of(value);
    } catch (IllegalArgumentException e) {
      r.problem(SERVERS_DNS, e.getMessage());
      return;
    }
    try {
      servers = dns.resolve();
      this.dns = value.strip();
    } catch (java.net.UnknownHostException e) {
      r.problem(SERVERS_DNS, e.getMessage());
    }
  }

  /**
   * The source to watch: the servers file or the DNS name; empty for a list given in {@code
   * shardwise.servers}.
   */
  Optional<ServerListSource> watched() {
    if (file != null) {
      return Optional.of(ServersFile.of(file));
    }
    return dns == null ? Optional.empty() : Optional.of(ServersDns.of(dns));
  }

  /**
   * The checks that need the name service: every host resolves now, and no two entries reach the
   * same address and port (two spellings of one server).
   */
  private void checkAddresses(SettingsReader r, String key) {
    List<String> unresolved = ServerListChecks.unresolvedHosts(servers);
    if (!unresolved.isEmpty()) {
      r.problem(
          key,
          String.join(", ", unresolved)
              + (unresolved.size() == 1 ? " does" : " do")
              + " not resolve to an address; expected a host name the name service knows, or an IP"
              + " address");
      servers = null;
      return;
    }
    try {
      ServerListChecks.checkDistinctServers(servers);
    } catch (IllegalArgumentException e) {
      r.problem(key, e.getMessage());
      servers = null;
    }
  }
}
