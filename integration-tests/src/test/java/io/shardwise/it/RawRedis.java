package io.shardwise.it;

import io.shardwise.testing.RedisServer;
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
 * A raw RESP2 connection that bypasses the client under test: one socket, pipelined commands, so
 * that writing or checking thousands of keys takes a few round trips. Error replies are returned as
 * {@link Error} values, not thrown, so that a pipeline reads every reply.
 */
final class RawRedis implements AutoCloseable {

  /** An error reply. */
  record Error(String message) {}

  private static final int CHUNK = 500;
  private static final byte[] CRLF = {'\r', '\n'};

  private final String address;
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawRedis(String host, int port) {
    this.address = host + ":" + port;
    try {
      socket = new Socket();
      socket.connect(new InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout(10_000);
      socket.setTcpNoDelay(true);
      in = new BufferedInputStream(socket.getInputStream(), 65_536);
      out = new BufferedOutputStream(socket.getOutputStream(), 65_536);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot connect to redis " + address, e);
    }
  }

  static RawRedis to(RedisServer server) {
    return new RawRedis(server.host(), server.port());
  }

  static RawRedis through(Twemproxy proxy) {
    return new RawRedis(proxy.host(), proxy.listenPort());
  }

  /** One command with UTF-8 arguments; its reply. */
  Object command(String... args) {
    List<byte[]> command = new ArrayList<>();
    for (String arg : args) {
      command.add(arg.getBytes(StandardCharsets.UTF_8));
    }
    return pipeline(List.of(command)).get(0);
  }

  /** Sends every command, in chunks, and returns the replies in order. */
  List<Object> pipeline(List<List<byte[]>> commands) {
    List<Object> replies = new ArrayList<>(commands.size());
    try {
      for (int from = 0; from < commands.size(); from += CHUNK) {
        List<List<byte[]>> chunk = commands.subList(from, Math.min(commands.size(), from + CHUNK));
        for (List<byte[]> command : chunk) {
          write(command);
        }
        out.flush();
        for (int i = 0; i < chunk.size(); i++) {
          replies.add(read());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("pipeline on redis " + address + " failed", e);
    }
    return replies;
  }

  /** {@code SET key value} for every entry, pipelined; every reply must be OK. */
  void setAll(Map<String, byte[]> values) {
    List<List<byte[]>> commands = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (Map.Entry<String, byte[]> e : values.entrySet()) {
      commands.add(List.of(utf8("SET"), utf8(e.getKey()), e.getValue()));
      keys.add(e.getKey());
    }
    List<Object> replies = pipeline(commands);
    for (int i = 0; i < replies.size(); i++) {
      if (!"OK".equals(replies.get(i))) {
        throw new IllegalStateException(
            "SET " + keys.get(i) + " on " + address + " answered " + replies.get(i));
      }
    }
  }

  /** The values among {@code keys} that the server holds (one pipelined GET per key). */
  Map<String, byte[]> getAll(Collection<String> keys) {
    List<String> all = new ArrayList<>(keys);
    List<List<byte[]>> commands = new ArrayList<>();
    for (String key : all) {
      commands.add(List.of(utf8("GET"), utf8(key)));
    }
    List<Object> replies = pipeline(commands);
    Map<String, byte[]> found = new HashMap<>();
    for (int i = 0; i < all.size(); i++) {
      Object reply = replies.get(i);
      if (reply instanceof Error error) {
        throw new IllegalStateException("GET " + all.get(i) + " on " + address + ": " + error);
      }
      if (reply != null) {
        found.put(all.get(i), (byte[]) reply);
      }
    }
    return found;
  }

  /** {@code INFO section} as field to value. */
  Map<String, String> info(String section) {
    Map<String, String> fields = new HashMap<>();
    String text = new String((byte[]) command("INFO", section), StandardCharsets.UTF_8);
    for (String line : text.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (!line.startsWith("#") && colon > 0) {
        fields.put(line.substring(0, colon), line.substring(colon + 1));
      }
    }
    return fields;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private void write(List<byte[]> command) throws IOException {
    out.write(('*' + Integer.toString(command.size())).getBytes(StandardCharsets.US_ASCII));
    out.write(CRLF);
    for (byte[] arg : command) {
      out.write(('$' + Integer.toString(arg.length)).getBytes(StandardCharsets.US_ASCII));
      out.write(CRLF);
      out.write(arg);
      out.write(CRLF);
    }
  }

  private Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new IOException("redis " + address + " closed the connection");
    }
    String line = readLine();
    switch (type) {
      case '+':
        return line;
      case '-':
        return new Error(line);
      case ':':
        return Long.parseLong(line);
      case '$':
        {
          int length = Integer.parseInt(line);
          if (length < 0) {
            return null;
          }
          byte[] data = in.readNBytes(length);
          readLine();
          return data;
        }
      case '*':
        {
          int count = Integer.parseInt(line);
          if (count < 0) {
            return null;
          }
          List<Object> items = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            items.add(read());
          }
          return items;
        }
      default:
        throw new IOException("unexpected RESP type '" + (char) type + "' from " + address);
    }
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new IOException("redis " + address + " closed the connection");
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
