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
import java.util.List;

/**
 * Reads the names of keys already stored on one server, and nothing else: memcached's {@code
 * lru_crawler metadump all} (memcached 1.4.31 and later) or Redis's {@code SCAN}. Never writes,
 * never deletes, never reads a value.
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
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(node.host(), node.port()), (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
      OutputStream out = socket.getOutputStream();
      return redis ? scan(node, in, out, limit) : metadump(node, in, out, limit);
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

  private static List<byte[]> scan(Node node, InputStream in, OutputStream out, int limit)
      throws IOException {
    List<byte[]> keys = new ArrayList<>();
    String cursor = "0";
    do {
      writeCommand(out, "SCAN", cursor, "COUNT", "1000");
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

  private static void writeCommand(OutputStream out, String... args) throws IOException {
    StringBuilder sb = new StringBuilder().append('*').append(args.length).append("\r\n");
    for (String a : args) {
      sb.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
    }
    out.write(sb.toString().getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  private static byte[] readBulk(InputStream in) throws IOException {
    expect(in, '$');
    int length = Integer.parseInt(readLine(in));
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
