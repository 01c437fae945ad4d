package io.shardwise.memcached;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Raw memcached commands the test-servers helpers do not offer, on a fresh connection each. */
final class MetaCommands {

  private MetaCommands() {}

  /**
   * The seconds until {@code key} expires, from memcached 1.6's meta get with the {@code t} flag
   * ({@code mg <key> t} answers {@code HD t<seconds>}): -1 for no expiry; null on a miss.
   */
  static Long secondsToExpiry(String host, int port, String key) {
    String line = command(host, port, "mg " + key + " t");
    if (line.equals("EN")) {
      return null;
    }
    for (String part : line.split(" ")) {
      if (part.startsWith("t")) {
        return Long.parseLong(part.substring(1));
      }
    }
    throw new IllegalStateException("no t flag in the reply to 'mg " + key + " t': " + line);
  }

  private static String command(String host, int port, String command) {
    try (Socket socket = new Socket(host, port)) {
      socket.setSoTimeout(2000);
      OutputStream out = socket.getOutputStream();
      out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder line = new StringBuilder();
      int b;
      while ((b = in.read()) != -1 && b != '\n') {
        if (b != '\r') {
          line.append((char) b);
        }
      }
      return line.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
