package io.shardwise.memcached;

import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import io.shardwise.spi.KeyRules;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The largest value the memcached servers of a backend store under a key, exactly: memcached
 * refuses an item whose size is over its {@code item_size_max} ({@code -I}, default 1 MiB) with
 * {@code SERVER_ERROR object too large for cache} and then, on a {@code set}, deletes the key's
 * previous value. A value refused here never reaches a server.
 *
 * <p>The item size, from memcached's {@code items.c} ({@code item_make_header}, {@code
 * item_size_ok}) and {@code slabs.c} ({@code slabs_clsid} refuses sizes over {@code
 * item_size_max}), the same for the text and binary protocols and with or without chunked items:
 * the item header ({@code sizeof(item)}, 48 bytes on a 64-bit server), the key and its
 * terminating NUL, 4 bytes of flags unless the flags are 0, the value and its CRLF, and 8 bytes of
 * CAS unless the server runs with {@code -C}. Measured on memcached 1.6.18 with keys of 1 to 250
 * bytes on both protocols: with {@code -I 1m} the largest value under a 1-byte key is 1,048,516
 * bytes with flags 0 and 1,048,512 with flags, one byte less per further key byte (1,048,267 and
 * 1,048,263 under a 250-byte key); with {@code -I 2m -C}, 2,097,100 bytes under a 1-byte key.
 *
 * <p>Each server's {@code item_size_max} and {@code cas_enabled} are read with {@code stats
 * settings} on a short-lived connection of its own after the node's first connection attempt
 * ({@link MemcachedBackend#limitsRead} completes then; the client's builder waits for it). A
 * server that cannot be read (down at connect, SASL configured, or no answer within the connect
 * timeout) counts with memcached's defaults: {@code item_size_max} {@value
 * MemcachedBackend#DEFAULT_MAX_VALUE_BYTES} with CAS. Values are checked against the smallest limit
 * of the backend's servers, so an accepted value fits whichever server the key routes or fails
 * over to. A 32-bit server has a smaller header, so the limit is a few bytes short of its own.
 */
final class ItemSizeLimit {

  /** {@code sizeof(item)} on a 64-bit memcached 1.6 (memcached.h, {@code struct _stritem}). */
  static final int ITEM_HEADER_BYTES = 48;

  /** The settings of one server, as they matter for the item size. */
  record Settings(long itemSizeMax, boolean cas, String source, boolean metaCommands) {

    static final Settings DEFAULTS =
        new Settings(MemcachedBackend.DEFAULT_MAX_VALUE_BYTES, true, "memcached's default", false);

    /** The largest value stored under a key of {@code keyBytes} bytes with {@code flags}. */
    long maxValueBytes(int keyBytes, int flags) {
      return itemSizeMax - overhead(keyBytes, flags);
    }

    long overhead(int keyBytes, int flags) {
      return ITEM_HEADER_BYTES + keyBytes + 1 + (flags == 0 ? 0 : 4) + 2 + (cas ? 8 : 0);
    }
  }

  private final Map<Object, Settings> servers = new ConcurrentHashMap<>();
  /** {@link #smallest()}, kept up to date so that a check does not walk the servers. */
  private volatile Settings smallest = Settings.DEFAULTS;

  /** Counts {@code server} with memcached's defaults until {@link #read} replaces them. */
  void add(Object server) {
    servers.putIfAbsent(server, Settings.DEFAULTS);
    update();
  }

  void remove(Object server) {
    servers.remove(server);
    update();
  }

  /**
   * Reads {@code node}'s settings with {@code stats settings} and {@code version}; keeps the
   * defaults (and returns them) if it cannot.
   */
  Settings read(Object server, Node node, Duration timeout) {
    Settings read;
    try {
      read = readSettings(node, timeout);
    } catch (IOException | RuntimeException e) {
      return Settings.DEFAULTS;
    }
    servers.replace(server, Settings.DEFAULTS, read);
    update();
    return read;
  }

  /** The settings that decide the limit: those of the server with the smallest items. */
  Settings smallest() {
    return smallest;
  }

  private synchronized void update() {
    Settings smallest = null;
    for (Settings s : servers.values()) {
      if (smallest == null
          || s.itemSizeMax() - (s.cas() ? 8 : 0) < smallest.itemSizeMax() - (smallest.cas() ? 8 : 0)) {
        smallest = s;
      }
    }
    this.smallest = smallest == null ? Settings.DEFAULTS : smallest;
  }

  /** Throws {@link IllegalArgumentException} if a server would refuse {@code value} at {@code key}. */
  void check(String key, CachedValue value) {
    Settings s = smallest();
    if (value.length() <= s.maxValueBytes(KeyRules.MAX_MEMCACHED_KEY_BYTES, value.flags())) {
      return; // fits under any key: the common case needs no key length
    }
    int keyBytes = key.getBytes(StandardCharsets.UTF_8).length;
    long max = s.maxValueBytes(keyBytes, value.flags());
    if (value.length() > max) {
      throw new IllegalArgumentException(
          "memcached stores values of at most "
              + max
              + " bytes under a "
              + keyBytes
              + "-byte key with flags "
              + (value.flags() == 0 ? "0" : "not 0")
              + " (item size "
              + s.itemSizeMax()
              + " of "
              + s.source()
              + " less "
              + s.overhead(keyBytes, value.flags())
              + " bytes of item header, key, flags, CRLF"
              + (s.cas() ? " and CAS" : "")
              + "); got "
              + value.length()
              + " for "
              + KeyRules.shorten(key));
    }
  }

  private static Settings readSettings(Node node, Duration timeout) throws IOException {
    int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(node.host(), node.port()), millis);
      socket.setSoTimeout(millis);
      OutputStream out = socket.getOutputStream();
      out.write("stats settings\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder reply = new StringBuilder();
      byte[] buf = new byte[4096];
      while (!reply.toString().endsWith("END\r\n")) {
        int n = in.read(buf);
        if (n < 0 || reply.length() > 1 << 16) {
          throw new IOException("no complete reply to stats settings");
        }
        reply.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
      }
      long itemSizeMax = -1;
      Boolean cas = null;
      for (String line : reply.toString().split("\r\n")) {
        String[] parts = line.split(" ");
        if (parts.length == 3 && parts[0].equals("STAT")) {
          if (parts[1].equals("item_size_max")) {
            itemSizeMax = Long.parseLong(parts[2]);
          } else if (parts[1].equals("cas_enabled")) {
            cas = parts[2].equals("yes");
          }
        }
      }
      if (itemSizeMax <= 0 || cas == null) {
        throw new IOException("stats settings without item_size_max or cas_enabled");
      }
      out.write("version\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      StringBuilder version = new StringBuilder();
      while (version.indexOf("\r\n") < 0) {
        int n = in.read(buf);
        if (n < 0 || version.length() > 1024) {
          throw new IOException("no complete reply to version");
        }
        version.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
      }
      return new Settings(itemSizeMax, cas, node.host() + ":" + node.port(), hasMetaCommands(version.substring(0, version.indexOf("\r\n"))));
    }
  }

  /**
   * Whether a server answering {@code version} with {@code line} has the meta commands: memcached
   * 1.6 and later ({@code VERSION 1.6.18}). A proxy or an older server does not.
   */
  static boolean hasMetaCommands(String line) {
    if (!line.startsWith("VERSION ")) {
      return false;
    }
    String[] parts = line.substring("VERSION ".length()).split("[.\\s-]");
    try {
      int major = Integer.parseInt(parts[0]);
      int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
      return major > 1 || (major == 1 && minor >= 6);
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
