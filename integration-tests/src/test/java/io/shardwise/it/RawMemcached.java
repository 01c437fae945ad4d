package io.shardwise.it;

import io.shardwise.testing.MemcachedItem;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.Twemproxy;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A raw memcached text-protocol connection that bypasses the client under test: one socket,
 * pipelined {@code set}s and chunked multi-key {@code get}s, so that checking 10,000 keys on a
 * server takes a few round trips rather than 10,000 connections (what the per-call {@code
 * MemcachedTextClient} of test-servers would cost).
 */
final class RawMemcached implements AutoCloseable {

  private static final int CHUNK = 200;
  private static final byte[] CRLF = {'\r', '\n'};

  private final String address;
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawMemcached(String host, int port) {
    this.address = host + ":" + port;
    try {
      socket = new Socket();
      socket.connect(new InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout(10_000);
      socket.setTcpNoDelay(true);
      in = new BufferedInputStream(socket.getInputStream(), 65_536);
      out = new BufferedOutputStream(socket.getOutputStream(), 65_536);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot connect to memcached " + address, e);
    }
  }

  static RawMemcached to(MemcachedServer server) {
    return new RawMemcached(server.host(), server.port());
  }

  static RawMemcached through(Twemproxy proxy) {
    return new RawMemcached(proxy.host(), proxy.listenPort());
  }

  /** The items among {@code keys} that the server holds; absent keys are not in the map. */
  Map<String, MemcachedItem> getAll(Collection<String> keys) {
    Map<String, MemcachedItem> found = new HashMap<>();
    List<String> all = new ArrayList<>(keys);
    try {
      for (int from = 0; from < all.size(); from += CHUNK) {
        List<String> chunk = all.subList(from, Math.min(all.size(), from + CHUNK));
        writeLine("get " + String.join(" ", chunk));
        out.flush();
        while (true) {
          String line = readLine();
          if (line.equals("END")) {
            break;
          }
          String[] parts = line.split(" ");
          if (parts.length < 4 || !parts[0].equals("VALUE")) {
            throw new IOException("expected VALUE or END from " + address + " but got: " + line);
          }
          int flags = Integer.parseUnsignedInt(parts[2]);
          byte[] data = in.readNBytes(Integer.parseInt(parts[3]));
          readLine(); // the CRLF after the data block
          found.put(parts[1], new MemcachedItem(flags, data));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("raw get on memcached " + address + " failed", e);
    }
    return found;
  }

  /** Stores every entry with {@code flags} and no expiry, pipelined; every reply must be STORED. */
  void setAll(Map<String, byte[]> values, int flags) {
    List<Map.Entry<String, byte[]>> all = new ArrayList<>(values.entrySet());
    try {
      for (int from = 0; from < all.size(); from += CHUNK) {
        List<Map.Entry<String, byte[]>> chunk =
            all.subList(from, Math.min(all.size(), from + CHUNK));
        for (Map.Entry<String, byte[]> e : chunk) {
          writeLine(
              "set "
                  + e.getKey()
                  + " "
                  + Integer.toUnsignedString(flags)
                  + " 0 "
                  + e.getValue().length);
          out.write(e.getValue());
          out.write(CRLF);
        }
        out.flush();
        for (Map.Entry<String, byte[]> e : chunk) {
          String reply = readLine();
          if (!reply.equals("STORED")) {
            throw new IOException("set " + e.getKey() + " on " + address + " answered " + reply);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("raw set on memcached " + address + " failed", e);
    }
  }

  /** Sends one command and returns the first reply line. */
  String command(String line) {
    try {
      writeLine(line);
      out.flush();
      return readLine();
    } catch (IOException e) {
      throw new UncheckedIOException("'" + line + "' on memcached " + address + " failed", e);
    }
  }

  /**
   * Seconds until {@code key} expires, from memcached 1.6's meta get ({@code mg <key> t} answers
   * {@code HD t<seconds>}, -1 for no expiry); null on a miss.
   */
  Long secondsToExpiry(String key) {
    String reply = command("mg " + key + " t");
    if (reply.equals("EN")) {
      return null;
    }
    for (String part : reply.split(" ")) {
      if (part.startsWith("t")) {
        return Long.parseLong(part.substring(1));
      }
    }
    throw new IllegalStateException("no t flag in the reply to 'mg " + key + " t': " + reply);
  }

  private void writeLine(String line) throws IOException {
    out.write(line.getBytes(StandardCharsets.UTF_8));
    out.write(CRLF);
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new IOException("memcached " + address + " closed the connection");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing to do
    }
  }
}
