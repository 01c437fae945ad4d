package io.shardwise.cli;

import io.shardwise.routing.Node;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Reads the names of keys already stored on one server (memcached's {@code lru_crawler metadump
 * all}, memcached 1.4.31 and later, or Redis's {@code SCAN}), and a few of their values. Never
 * writes, never deletes. Values are read without counting as an access where the server allows
 * it: memcached's meta get with {@code u} (1.6 and later) leaves the item's place in the LRU and
 * its fetched mark as they were, Redis's {@code CLIENT NO-TOUCH} (7.2 and later) its idle time.
 */
final class KeySampler {

  private static final int BUSY_RETRIES = 100;

  private KeySampler() {}

  /**
   * Up to {@code limit} keys of {@code node}, as the server stores them (bytes).
   *
   * @throws IOException if the server cannot be reached or refuses the command
   */
  static List<byte[]> sample(Node node, boolean redis, int limit, Duration timeout) throws IOException {
    return exchange(node, timeout, (in, out) -> redis ? scan(node, in, out, limit) : metadump(node, in, out, limit));
  }

  /** What is read from a server over one connection. */
  private interface Exchange<T> {
    T run(InputStream in, OutputStream out) throws IOException;
  }

  /** Runs {@code exchange} on a new connection to {@code node}; errors name the server. */
  private static <T> T exchange(Node node, Duration timeout, Exchange<T> exchange) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(node.host(), node.port()), (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      return exchange.run(new BufferedInputStream(socket.getInputStream(), 1 << 16), socket.getOutputStream());
    } catch (IOException e) {
      throw new IOException(node.address() + ": " + e.getMessage(), e);
    }
  }

  private static List<byte[]> metadump(Node node, InputStream in, OutputStream out, int limit)
      throws IOException {
    List<byte[]> keys = new ArrayList<>();
    for (int attempt = 0; ; attempt++) {
      out.write("lru_crawler metadump all\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String first = readLine(in);
      if (first.startsWith("BUSY") && attempt < BUSY_RETRIES) {
        sleep(50); // another crawl is running; memcached runs one at a time
        continue;
      }
      String line = first;
      while (!line.equals("END")) {
        if (!line.startsWith("key=")) {
          throw new IOException(
              "memcached refused 'lru_crawler metadump all' (memcached 1.4.31 or later with the LRU"
                  + " crawler enabled is needed): " + line);
        }
        if (keys.size() < limit) {
          int end = line.indexOf(' ');
          keys.add(uriDecode(line.substring(4, end < 0 ? line.length() : end)));
        } else {
          return keys; // closing the connection ends the dump
        }
        line = readLine(in);
      }
      return keys;
    }
  }

  /** memcached writes metadump keys URI-encoded ({@code %XX} for bytes outside a safe set). */
  static byte[] uriDecode(String s) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length()) {
        b.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        b.write((byte) c);
      }
    }
    return b.toByteArray();
  }

  /**
   * The values of the first {@code limit} of {@code keys} on {@code node}; keys gone since they
   * were sampled are left out. A server that cannot read values this way is named in the
   * sample's problems, not an error.
   *
   * @throws IOException if the server cannot be reached
   */
  static ValueSample values(Node node, boolean redis, List<byte[]> keys, int limit, Duration timeout)
      throws IOException {
    List<byte[]> wanted = keys.subList(0, Math.min(limit, keys.size()));
    if (wanted.isEmpty()) {
      return ValueSample.NONE;
    }
    return exchange(node, timeout,
        (in, out) -> redis ? redisValues(node, in, out, wanted) : memcachedValues(node, in, out, wanted));
  }

  /** {@code mg <key> b v f u}: the value and its flags, the key in base64, no LRU bump. */
  private static ValueSample memcachedValues(Node node, InputStream in, OutputStream out, List<byte[]> keys)
      throws IOException {
    List<ValueSample.Value> values = new ArrayList<>();
    for (byte[] key : keys) {
      out.write(("mg " + Base64.getEncoder().encodeToString(key) + " b v f u\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String line = readLine(in);
      if (line.equals("EN")) {
        continue; // expired or evicted since it was sampled
      }
      String[] tokens = line.split(" ");
      if (!tokens[0].equals("VA") || tokens.length < 2) {
        return new ValueSample(values, 0, false, List.of(node.address() + " refused meta get (memcached 1.6 or"
            + " later reads values without bumping them): " + line));
      }
      int flags = 0;
      for (String t : tokens) {
        if (t.startsWith("f")) {
          flags = Integer.parseUnsignedInt(t.substring(1));
        }
      }
      values.add(new ValueSample.Value(readBlock(in, Integer.parseInt(tokens[1])), flags));
    }
    return new ValueSample(values, 0, false, List.of());
  }

  private static ValueSample redisValues(Node node, InputStream in, OutputStream out, List<byte[]> keys)
      throws IOException {
    writeCommand(out, bytes("CLIENT"), bytes("NO-TOUCH"), bytes("ON"));
    boolean touched = in.read() != '+'; // before Redis 7.2: "unknown subcommand"
    readLine(in);
    List<ValueSample.Value> values = new ArrayList<>();
    int notStrings = 0;
    for (byte[] key : keys) {
      writeCommand(out, bytes("GET"), key);
      int type = in.read();
      if (type == '-') {
        String reply = readLine(in);
        if (reply.startsWith("WRONGTYPE")) {
          notStrings++;
          continue;
        }
        return new ValueSample(values, notStrings, touched, List.of(node.address() + " refused GET: " + reply));
      }
      if (type != '$') {
        throw new IOException("unexpected reply to GET starting with '" + (char) type + "'");
      }
      int length = Integer.parseInt(readLine(in));
      if (length >= 0) {
        values.add(new ValueSample.Value(readBlock(in, length), ValueSample.NO_FLAGS));
      }
    }
    return new ValueSample(values, notStrings, touched && !values.isEmpty(), List.of());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static List<byte[]> scan(Node node, InputStream in, OutputStream out, int limit)
      throws IOException {
    List<byte[]> keys = new ArrayList<>();
    String cursor = "0";
    do {
      writeCommand(out, bytes("SCAN"), bytes(cursor), bytes("COUNT"), bytes("1000"));
      int type = in.read();
      if (type == '-') {
        throw new IOException("Redis refused SCAN: " + readLine(in));
      }
      if (type != '*') {
        throw new IOException("unexpected reply to SCAN starting with '" + (char) type + "'");
      }
      readLine(in); // 2
      cursor = new String(readBulk(in), StandardCharsets.US_ASCII);
      expect(in, '*');
      int count = Integer.parseInt(readLine(in));
      for (int i = 0; i < count; i++) {
        byte[] key = readBulk(in);
        if (keys.size() < limit) {
          keys.add(key);
        }
      }
    } while (!cursor.equals("0") && keys.size() < limit);
    return keys;
  }

  private static void writeCommand(OutputStream out, byte[]... args) throws IOException {
    ByteArrayOutputStream command = new ByteArrayOutputStream();
    command.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (byte[] a : args) {
      command.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      command.writeBytes(a);
      command.writeBytes(bytes("\r\n"));
    }
    command.writeTo(out);
    out.flush();
  }

  private static byte[] readBulk(InputStream in) throws IOException {
    expect(in, '$');
    return readBlock(in, Integer.parseInt(readLine(in)));
  }

  /** {@code length} bytes and the CRLF after them. */
  private static byte[] readBlock(InputStream in, int length) throws IOException {
    byte[] data = in.readNBytes(length);
    if (data.length != length) {
      throw new IOException("connection closed in a reply");
    }
    readLine(in);
    return data;
  }

  private static void expect(InputStream in, char c) throws IOException {
    int got = in.read();
    if (got != c) {
      throw new IOException("unexpected reply: expected '" + c + "' but got " + got);
    }
  }

  /** One CRLF-terminated line as ASCII, without the CRLF. */
  private static String readLine(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        int len = sb.length();
        if (len > 0 && sb.charAt(len - 1) == '\r') {
          sb.setLength(len - 1);
        }
        return sb.toString();
      }
      sb.append((char) c);
    }
    throw new IOException("connection closed by the server");
  }

  private static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
