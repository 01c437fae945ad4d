package io.shardwise.routing;

import java.util.Locale;
import java.util.Objects;

/**
 * One cache server: where it is ({@code host:port}), how much of the key space it should take
 * ({@code weight}, at least 1) and the name routers hash when they place it.
 *
 * <p>The name defaults to the address exactly as written ({@code host:port}, IPv6 hosts in
 * brackets). A node given an explicit name ({@code cache-a=10.0.0.1:11211}) keeps its
 * place on a ring when its address changes, the way twemproxy's server names work. The host
 * is kept as written and never resolved here: ketama-compatible placement depends on the exact
 * text.
 *
 * <p>Instances are immutable and compare by host, port, weight and name.
 */
public final class Node {

  private final String host;
  private final int port;
  private final int weight;
  private final String name;
  private final boolean explicitName;

  private Node(String host, int port, int weight, String name) {
    Objects.requireNonNull(host, "host");
    if (host.isEmpty()) {
      throw new IllegalArgumentException("host must not be empty");
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (c <= ' ' || c == 0x7f || c == '/' || c == ',' || c == '[' || c == ']' || c == '=') {
        throw new IllegalArgumentException(
            "host must not contain whitespace, control characters or any of / , [ ] = but was '"
                + host + "'");
      }
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535 but was " + port);
    }
    if (weight < 1) {
      throw new IllegalArgumentException("weight must be >= 1 but was " + weight);
    }
    if (name != null) {
      if (name.isEmpty()) {
        throw new IllegalArgumentException("name must not be empty");
      }
      for (int i = 0; i < name.length(); i++) {
        char c = name.charAt(i);
        if (c <= ' ' || c == 0x7f || c == ',' || c == '=' || c == '#') {
          throw new IllegalArgumentException(
              "name must not contain whitespace, control characters or any of , = # but was '"
                  + name + "'");
        }
      }
    }
    this.host = host;
    this.port = port;
    this.weight = weight;
    this.explicitName = name != null;
    this.name = name != null ? name : formatAddress(host, port);
  }

  /** A node at {@code host:port} with weight 1, named by its address. */
  public static Node of(String host, int port) {
    return new Node(host, port, 1, null);
  }

  /** A node at {@code host:port} with the given weight, named by its address. */
  public static Node of(String host, int port, int weight) {
    return new Node(host, port, weight, null);
  }

  /** A node with an explicit name, which routers hash instead of the address. */
  public static Node named(String name, String host, int port, int weight) {
    Objects.requireNonNull(name, "name");
    return new Node(host, port, weight, name);
  }

  /** The host as written: a name, an IPv4 literal, or an IPv6 literal without brackets. */
  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  /** Relative share of the key space, at least 1. */
  public int weight() {
    return weight;
  }

  /** The explicit name if one was given, else {@link #address()}. */
  public String name() {
    return name;
  }

  /** Whether the name was given explicitly ({@code name=host:port}). */
  public boolean hasExplicitName() {
    return explicitName;
  }

  /** {@code host:port}, with an IPv6 host in brackets: {@code [::1]:6379}. */
  public String address() {
    return formatAddress(host, port);
  }

  /** A copy of this node with another weight. */
  public Node withWeight(int newWeight) {
    return new Node(host, port, newWeight, explicitName ? name : null);
  }

  static String formatAddress(String host, int port) {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }

  /** Address key used to detect two entries for the same server (host compared ignoring case). */
  String addressKey() {
    return host.toLowerCase(Locale.ROOT) + "#" + port;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Node)) {
      return false;
    }
    Node other = (Node) o;
    return port == other.port
        && weight == other.weight
        && explicitName == other.explicitName
        && host.equals(other.host)
        && name.equals(other.name);
  }

  @Override
  public int hashCode() {
    return Objects.hash(host, port, weight, name, explicitName);
  }

  /** The server-list form of this node, which {@link ServerList#parse} reads back. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    if (explicitName) {
      sb.append(name).append('=');
    }
    sb.append(address());
    if (weight != 1) {
      sb.append(':').append(weight);
    }
    return sb.toString();
  }
}
