package io.shardwise.core.sources;

import io.shardwise.routing.Node;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A DNS name whose A and AAAA records are the servers, all on one port: a Kubernetes headless
 * service ({@code memcached.cache.svc.cluster.local:11211}), a cloud cache's node name. Each
 * address becomes one node of weight 1 named by its address ({@code 10.0.0.7:11211}, an IPv6
 * address in brackets in Java's full form {@code [2001:db8:0:0:0:0:0:7]:11211}); the nodes are
 * sorted, IPv4 before IPv6 and then by address bytes, so every client builds the same list
 * whatever order the records come in.
 *
 * <p>What a router hashes is then the address: with ketama, a server that comes back with another
 * address (a restarted pod) is a new node and its keys move, as they would in a hand-written list.
 * List-order routers (jump, modulo) also renumber when an address sorts in between: prefer ketama,
 * ring, hrw or maglev with a DNS source.
 *
 * <p>The answer goes through {@link AddressResolver}; the system one uses the JVM's address cache,
 * which keeps a positive answer {@code networkaddress.cache.ttl} seconds (30 in OpenJDK when no
 * security manager is installed) and a failure {@code networkaddress.cache.negative.ttl} (10): a
 * refresh more often than that sees the cached answer. An answer with no address is refused (the
 * watcher keeps the list in force); so is a name that cannot be resolved.
 */
public final class ServersDns implements ServerListSource {

  /** IPv4 first, then by unsigned address bytes. */
  private static final Comparator<InetAddress> ORDER =
      Comparator.comparing((InetAddress a) -> a instanceof Inet4Address ? 0 : 1)
          .thenComparing(InetAddress::getAddress, Arrays::compareUnsigned);

  private final String host;
  private final int port;
  private final AddressResolver resolver;

  private ServersDns(String host, int port, AddressResolver resolver) {
    this.host = host;
    this.port = port;
    this.resolver = Objects.requireNonNull(resolver, "resolver");
  }

  /**
   * The name and port in {@code name:port}, resolved by the JVM.
   *
   * @throws IllegalArgumentException if it is not {@code name:port}
   */
  public static ServersDns of(String nameAndPort) {
    return of(nameAndPort, AddressResolver.SYSTEM);
  }

  /** {@link #of(String)} with another resolver. */
  public static ServersDns of(String nameAndPort, AddressResolver resolver) {
    Objects.requireNonNull(nameAndPort, "nameAndPort");
    String text = nameAndPort.strip();
    int colon = text.indexOf(':');
    String port = colon < 0 ? "" : text.substring(colon + 1);
    boolean blank = text.chars().anyMatch(c -> c <= ' ' || c == ',');
    if (colon < 1 || !port.matches("[0-9]{1,5}") || blank) {
      throw new IllegalArgumentException(
          "expected name:port such as memcached.cache.svc.cluster.local:11211 but was '"
              + nameAndPort
              + "'");
    }
    int number = Integer.parseInt(port);
    if (number < 1 || number > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535 but was " + port);
    }
    return new ServersDns(text.substring(0, colon), number, resolver);
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  /** Resolves the name now. */
  @Override
  public Optional<List<Node>> read() throws UnknownHostException {
    return Optional.of(resolve());
  }

  /**
   * The nodes the name resolves to now, sorted.
   *
   * @throws UnknownHostException if it cannot be resolved or has no address
   */
  public List<Node> resolve() throws UnknownHostException {
    InetAddress[] found;
    try {
      found = resolver.resolve(host);
    } catch (UnknownHostException e) {
      throw new UnknownHostException(describe() + " cannot be resolved: " + e.getMessage());
    }
    TreeSet<InetAddress> sorted = new TreeSet<>(ORDER);
    if (found != null) {
      Arrays.stream(found).filter(Objects::nonNull).forEach(sorted::add);
    }
    if (sorted.isEmpty()) {
      throw new UnknownHostException(
          describe() + " resolved to no address; an empty answer never empties the fleet");
    }
    List<Node> nodes = new ArrayList<>(sorted.size());
    for (InetAddress address : sorted) {
      nodes.add(Node.of(address.getHostAddress(), port));
    }
    return List.copyOf(nodes);
  }

  @Override
  public String describe() {
    return "dns name " + host + ":" + port;
  }

  @Override
  public String toString() {
    return describe();
  }
}
