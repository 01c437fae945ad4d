package io.shardwise.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A minimal Redis (RESP2) client for assertions that must bypass the client under test.
 *
 * <p>Replies: simple strings as {@code String}, integers as {@code Long}, bulk strings as {@code
 * byte[]}, arrays as {@code List<Object>}, nil as {@code null}; an error reply is thrown as {@link
 * ErrorReplyException}. Every call opens a new connection and closes it. I/O failures surface as
 * {@link UncheckedIOException} whose cause is the original exception ({@code ConnectException} for
 * a refused connection, {@code SocketTimeoutException} for a paused server).
 */
public final class RespClient {
  private final String host;
  private final int port;
  private final Duration timeout;

  /**
   * @param timeout connect and read timeout of each call
   */
  public RespClient(String host, int port, Duration timeout) {
    this.host = Objects.requireNonNull(host, "host");
    this.port = port;
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /** Sends one command, each argument as a UTF-8 bulk string, and returns the parsed reply. */
  public Object command(String... args) {
    byte[][] encoded = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      encoded[i] = args[i].getBytes(StandardCharsets.UTF_8);
    }
    return commandBytes(encoded);
  }

  /** Sends one command with binary arguments and returns the parsed reply. */
  public Object commandBytes(byte[]... args) {
    if (args.length == 0) {
      throw new IllegalArgumentException("a Redis command needs at least its name");
    }
    Socket socket = Wire.connect(host, port, timeout);
    try {
      OutputStream out = new BufferedOutputStream(socket.getOutputStream());
      out.write(('*' + Integer.toString(args.length)).getBytes(StandardCharsets.US_ASCII));
      out.write(Wire.CRLF);
      for (byte[] arg : args) {
        out.write(('$' + Integer.toString(arg.length)).getBytes(StandardCharsets.US_ASCII));
        out.write(Wire.CRLF);
        out.write(arg);
        out.write(Wire.CRLF);
      }
      out.flush();
      return RespReader.read(new BufferedInputStream(socket.getInputStream()));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "redis " + host + ":" + port + " failed on " + describe(args) + ": " + e, e);
    } finally {
      Wire.closeQuietly(socket);
    }
  }

  /** {@code GET key}: the raw value or {@code null}. */
  public byte[] get(String key) {
    return (byte[]) command("GET", key);
  }

  /** {@code SET key value}. */
  public void set(String key, byte[] value) {
    commandBytes(
        "SET".getBytes(StandardCharsets.US_ASCII), key.getBytes(StandardCharsets.UTF_8), value);
  }

  /** {@code PING}: {@code "PONG"}. */
  public String ping() {
    return (String) command("PING");
  }

  /** {@code DBSIZE}. */
  public long dbSize() {
    return (Long) command("DBSIZE");
  }

  /** {@code FLUSHALL}. */
  public void flushAll() {
    command("FLUSHALL");
  }

  /** {@code INFO} with every default section, as field to value. */
  public Map<String, String> info() {
    return parseInfo((byte[]) command("INFO"));
  }

  /**
   * {@code INFO section} (e.g. {@code server}, {@code keyspace}, {@code stats}) as field to value.
   */
  public Map<String, String> info(String section) {
    return parseInfo((byte[]) command("INFO", section));
  }

  @Override
  public String toString() {
    return "RespClient[" + host + ":" + port + "]";
  }

  static Map<String, String> parseInfo(byte[] text) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : new String(text, StandardCharsets.UTF_8).split("\r?\n")) {
      int colon = line.indexOf(':');
      if (line.isEmpty() || line.startsWith("#") || colon < 0) {
        continue;
      }
      fields.put(line.substring(0, colon), line.substring(colon + 1));
    }
    return fields;
  }

  private static String describe(byte[][] args) {
    return Arrays.stream(args).limit(3).map(Wire::preview).collect(Collectors.joining(" "))
        + (args.length > 3 ? " ..." : "");
  }
}
