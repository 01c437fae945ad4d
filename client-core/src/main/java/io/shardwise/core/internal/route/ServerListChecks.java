package io.shardwise.core.internal.route;

import io.shardwise.routing.Node;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Start-up checks of a server list beyond {@link io.shardwise.routing.ServerList}'s: an empty entry
 * between two servers, and two entries written differently ({@code 127.0.0.1:11211} and {@code
 * localhost:11211}) that reach the same server. Routing would treat them as two nodes and place
 * keys on each, so one server would hold two shares and a key could be read from the other entry's
 * ring position.
 */
public final class ServerListChecks {

  private ServerListChecks() {}

  /**
   * Throws {@link IllegalArgumentException} if two nodes resolve to a common IP address and the
   * same port, naming both as written. Host names that do not resolve are left to the connection.
   */
  public static void checkDistinctServers(List<Node> nodes) {
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      Node node = nodes.get(i);
      InetAddress[] addresses;
      try {
        addresses = InetAddress.getAllByName(node.host());
      } catch (UnknownHostException | SecurityException e) {
        continue;
      }
      for (InetAddress address : addresses) {
        String key = address.getHostAddress() + "#" + node.port();
        Integer previous = seen.putIfAbsent(key, i);
        if (previous != null && previous != i) {
          Node other = nodes.get(previous);
          throw new IllegalArgumentException(
              "server list must not name a server twice but entry "
                  + (previous + 1)
                  + " ("
                  + other.address()
                  + ") and entry "
                  + (i + 1)
                  + " ("
                  + node.address()
                  + ") both reach "
                  + Node.of(address.getHostAddress(), node.port()).address());
        }
      }
    }
  }

  /**
   * The hosts of {@code nodes} that do not resolve to an address now, as written ({@code
   * cache-9.example.com}), in order; IP addresses resolve without a lookup. Empty when every host
   * resolves.
   */
  public static List<String> unresolvedHosts(List<Node> nodes) {
    List<String> out = new java.util.ArrayList<>();
    for (Node node : nodes) {
      try {
        InetAddress.getAllByName(node.host());
      } catch (UnknownHostException | SecurityException e) {
        if (!out.contains(node.host())) {
          out.add(node.host());
        }
      }
    }
    return out;
  }

  /**
   * Throws {@link IllegalArgumentException} if a line of {@code serverList} has an empty entry
   * between two servers ({@code a:11211,,b:11211}), a likely typo that would otherwise be skipped.
   */
  public static void checkNoEmptyEntry(String serverList) {
    if (serverList == null) {
      return;
    }
    for (String line : serverList.split("\r\n|\r|\n", -1)) {
      int hash = line.indexOf('#');
      String entries = hash >= 0 ? line.substring(0, hash) : line;
      String[] parts = entries.split(",", -1);
      int first = -1;
      int last = -1;
      for (int i = 0; i < parts.length; i++) {
        if (!parts[i].isBlank()) {
          first = first < 0 ? i : first;
          last = i;
        }
      }
      String before = null;
      for (int i = first; first >= 0 && i < last; i++) {
        if (!parts[i].isBlank()) {
          before = parts[i].strip();
        } else {
          throw new IllegalArgumentException(
              "server list must not have an empty entry between two servers but has one after "
                  + before
                  + " in '"
                  + entries.strip()
                  + "'");
        }
      }
    }
  }
}
