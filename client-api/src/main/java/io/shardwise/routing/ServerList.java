package io.shardwise.routing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Parses the server-list syntax used by every Shardwise entry point (properties, CLI, files).
 *
 * <p>Entries are separated by commas or line breaks; {@code #} starts a comment that runs to the
 * end of the line; blank entries are skipped. One entry is
 *
 * <pre>
 *   host:port                 weight 1, named by its address
 *   host:port:weight
 *   name=host:port[:weight]   explicit name, hashed instead of the address
 *   [::1]:6379                IPv6 literals in brackets
 *   host:port weight          libketama server-file form (whitespace, then the weight)
 *   host:port:weight name     twemproxy form (whitespace, then the name)
 * </pre>
 *
 * <p>The order of the entries is the order of the nodes, which matters to list-order dependent
 * routers (ketama tie-breaking, jump and modulo buckets). Every rule violation is an {@link
 * IllegalArgumentException} naming the entry and the rule.
 */
public final class ServerList {

  private ServerList() {}

  /**
   * Parses a server list.
   *
   * @throws IllegalArgumentException if the list is empty, an entry is malformed or out of
   *     range, or two entries share an address or a name
   */
  public static List<Node> parse(String text) {
    Objects.requireNonNull(text, "server list");
    List<Node> nodes = new ArrayList<>();
    for (String line : text.split("\r\n|\r|\n", -1)) {
      int hash = line.indexOf('#');
      if (hash >= 0) {
        line = line.substring(0, hash);
      }
      for (String entry : line.split(",", -1)) {
        String trimmed = entry.strip();
        if (!trimmed.isEmpty()) {
          nodes.add(parseEntry(trimmed));
        }
      }
    }
    return validate(nodes);
  }

  /**
   * Checks a list of nodes built in code: not empty, no two nodes with the same address or name.
   *
   * @return an immutable copy of {@code nodes}
   */
  public static List<Node> validate(List<Node> nodes) {
    Objects.requireNonNull(nodes, "nodes");
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("server list must name at least one server but was empty");
    }
    Map<String, Integer> byAddress = new HashMap<>();
    Map<String, Integer> byName = new HashMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      Node node = Objects.requireNonNull(nodes.get(i), "node " + i);
      Integer prev = byAddress.putIfAbsent(node.addressKey(), i);
      if (prev != null) {
        throw new IllegalArgumentException(
            "server list must not name a server twice but "
                + node.address()
                + " is entry "
                + (prev + 1)
                + " and entry "
                + (i + 1));
      }
      prev = byName.putIfAbsent(node.name(), i);
      if (prev != null) {
        throw new IllegalArgumentException(
            "server names must be unique but '"
                + node.name()
                + "' is entry "
                + (prev + 1)
                + " and entry "
                + (i + 1));
      }
    }
    return List.copyOf(nodes);
  }

  /** Parses one entry; see the class documentation for the forms. */
  public static Node parseEntry(String entry) {
    String text = entry.strip();
    if (text.isEmpty()) {
      throw new IllegalArgumentException("server entry must not be empty");
    }
    String[] tokens = text.split("\\s+");
    if (tokens.length > 2) {
      throw fail(entry, "expected [name=]host:port[:weight] followed by at most one weight or name");
    }
    String main = tokens[0];
    String name = null;
    int eq = main.indexOf('=');
    if (eq >= 0) {
      name = main.substring(0, eq);
      main = main.substring(eq + 1);
      if (name.isEmpty()) {
        throw fail(entry, "the name before '=' must not be empty");
      }
    }

    String host;
    String rest;
    if (main.startsWith("[")) {
      int close = main.indexOf(']');
      if (close < 0) {
        throw fail(entry, "an IPv6 address must be closed with ']'");
      }
      host = main.substring(1, close);
      if (host.isEmpty() || host.indexOf(':') < 0) {
        throw fail(entry, "brackets are for IPv6 literals such as [::1]");
      }
      rest = main.substring(close + 1);
      if (!rest.startsWith(":")) {
        throw fail(entry, "expected ':port' after the IPv6 address");
      }
      rest = rest.substring(1);
    } else {
      int colon = main.indexOf(':');
      if (colon < 0) {
        throw fail(entry, "expected host:port");
      }
      host = main.substring(0, colon);
      rest = main.substring(colon + 1);
      if (host.isEmpty()) {
        throw fail(entry, "the host must not be empty");
      }
    }

    String[] parts = rest.split(":", -1);
    if (parts.length > 2) {
      if (!main.startsWith("[")) {
        throw fail(entry, "IPv6 addresses must be written in brackets, e.g. [::1]:6379");
      }
      throw fail(entry, "expected host:port[:weight]");
    }
    int port = parseInt(entry, parts[0], "port");
    if (port < 1 || port > 65535) {
      throw fail(entry, "port must be in 1..65535 but was " + parts[0]);
    }
    Integer weight = null;
    if (parts.length == 2) {
      weight = parseWeight(entry, parts[1]);
    }
    if (tokens.length == 2) {
      String extra = tokens[1];
      if (isDigits(extra) && weight == null) {
        weight = parseWeight(entry, extra);
      } else if (!isDigits(extra) && name == null) {
        name = extra;
      } else {
        throw fail(entry, "'" + extra + "' is neither a missing weight nor a missing name");
      }
    }
    int w = weight == null ? 1 : weight;
    try {
      return name == null ? Node.of(host, port, w) : Node.named(name, host, port, w);
    } catch (IllegalArgumentException e) {
      throw fail(entry, e.getMessage());
    }
  }

  private static int parseWeight(String entry, String text) {
    if (text.startsWith("-")) {
      throw fail(entry, "weight must be >= 1 but was " + text);
    }
    int weight = parseInt(entry, text, "weight");
    if (weight < 1) {
      throw fail(entry, "weight must be >= 1 but was " + text);
    }
    return weight;
  }

  private static int parseInt(String entry, String text, String what) {
    if (!isDigits(text)) {
      throw fail(entry, what + " must be a decimal integer but was '" + text + "'");
    }
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw fail(entry, what + " is out of range: " + text);
    }
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static IllegalArgumentException fail(String entry, String rule) {
    return new IllegalArgumentException("server entry '" + entry + "': " + rule);
  }
}
