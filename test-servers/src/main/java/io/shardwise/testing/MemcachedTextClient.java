package io.shardwise.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A minimal memcached text-protocol client for assertions that must bypass the client under test.
 *
 * <p>Every call opens a new connection and closes it, so the client has no state to go stale when a
 * server is killed or restarted. I/O failures surface as {@link UncheckedIOException} whose cause
 * is the original exception ({@code ConnectException} for a refused connection, {@code
 * SocketTimeoutException} for a paused server); error replies as {@link ErrorReplyException}.
 */
public final class MemcachedTextClient {
  /** Longest key memcached accepts, in bytes. */
  public static final int MAX_KEY_BYTES = 250;

  private final String host;
  private final int port;
  private final Duration timeout;

  /**
   * @param timeout connect and read timeout of each call
   */
  public MemcachedTextClient(String host, int port, Duration timeout) {
    this.host = Objects.requireNonNull(host, "host");
    this.port = port;
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /** The stored item, or {@code null} on a miss. */
  public MemcachedItem get(String key) {
    checkKey(key);
    return exchange(
        "get " + key,
        null,
        in -> {
          MemcachedItem item = null;
          while (true) {
            String line = Wire.readLine(in);
            if (line.equals("END")) {
              return item;
            }
            checkNotError(line);
            String[] parts = line.split(" ");
            if (parts.length < 4 || !parts[0].equals("VALUE")) {
              throw new IOException("expected VALUE or END but got: " + line);
            }
            int flags = Integer.parseUnsignedInt(parts[2]);
            byte[] data = Wire.readBlock(in, Integer.parseInt(parts[3]));
            item = new MemcachedItem(flags, data);
          }
        });
  }

  /** Stores {@code value} with no expiry; fails unless the server answers {@code STORED}. */
  public void set(String key, int flags, byte[] value) {
    set(key, flags, 0, value);
  }

  /** Stores {@code value} expiring after {@code exptime} (memcached's seconds-or-epoch rule). */
  public void set(String key, int flags, int exptime, byte[] value) {
    checkKey(key);
    String header =
        "set " + key + " " + Integer.toUnsignedString(flags) + " " + exptime + " " + value.length;
    String reply = exchange(header, value, Wire::readLine);
    if (!reply.equals("STORED")) {
      checkNotError(reply);
      throw new ErrorReplyException("set " + key + " answered " + reply + ", expected STORED");
    }
  }

  /** Deletes a key; {@code true} if it existed. */
  public boolean delete(String key) {
    checkKey(key);
    String reply = exchange("delete " + key, null, Wire::readLine);
    checkNotError(reply);
    return reply.equals("DELETED");
  }

  /** The general {@code stats} as name to value, e.g. {@code cmd_get}, {@code curr_items}. */
  public Map<String, String> stats() {
    return stats("");
  }

  /** {@code stats <group>} (e.g. {@code settings}, {@code slabs}); empty for the general stats. */
  public Map<String, String> stats(String group) {
    String command = group.isEmpty() ? "stats" : "stats " + group;
    return exchange(
        command,
        null,
        in -> {
          Map<String, String> stats = new LinkedHashMap<>();
          while (true) {
            String line = Wire.readLine(in);
            if (line.equals("END")) {
              return stats;
            }
            checkNotError(line);
            String[] parts = line.split(" ", 3);
            if (parts.length < 3 || !parts[0].equals("STAT")) {
              throw new IOException("expected STAT or END but got: " + line);
            }
            stats.put(parts[1], parts[2]);
          }
        });
  }

  /** Invalidates every item. */
  public void flushAll() {
    String reply = exchange("flush_all", null, Wire::readLine);
    checkNotError(reply);
  }

  /** The server version, e.g. {@code 1.6.18}. */
  public String version() {
    String reply = exchange("version", null, Wire::readLine);
    checkNotError(reply);
    if (!reply.startsWith("VERSION ")) {
      throw new ErrorReplyException("expected VERSION but got: " + reply);
    }
    return reply.substring("VERSION ".length());
  }

  @Override
  public String toString() {
    return "MemcachedTextClient[" + host + ":" + port + "]";
  }

  /** Validates a key the way memcached does: 1 to 250 bytes, no spaces or control characters. */
  static void checkKey(String key) {
    Objects.requireNonNull(key, "key");
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    if (bytes.length == 0 || bytes.length > MAX_KEY_BYTES) {
      throw new IllegalArgumentException(
          "memcached keys are 1 to "
              + MAX_KEY_BYTES
              + " bytes; got "
              + bytes.length
              + ": "
              + Wire.preview(bytes));
    }
    for (byte b : bytes) {
      if ((b >= 0 && b <= ' ') || b == 0x7f) {
        throw new IllegalArgumentException(
            "memcached keys may not contain spaces or control characters; got: "
                + Wire.preview(bytes));
      }
    }
  }

  private static void checkNotError(String line) {
    if (line.equals("ERROR")
        || line.startsWith("CLIENT_ERROR")
        || line.startsWith("SERVER_ERROR")) {
      throw new ErrorReplyException(line);
    }
  }

  private interface ReplyReader<T> {
    T read(InputStream in) throws IOException;
  }

  private <T> T exchange(String commandLine, byte[] block, ReplyReader<T> reader) {
    Socket socket = Wire.connect(host, port, timeout);
    try {
      OutputStream out = new BufferedOutputStream(socket.getOutputStream());
      out.write(commandLine.getBytes(StandardCharsets.UTF_8));
      out.write(Wire.CRLF);
      if (block != null) {
        out.write(block);
        out.write(Wire.CRLF);
      }
      out.flush();
      return reader.read(new BufferedInputStream(socket.getInputStream()));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "memcached " + host + ":" + port + " failed on '" + commandLine + "': " + e, e);
    } finally {
      Wire.closeQuietly(socket);
    }
  }
}
