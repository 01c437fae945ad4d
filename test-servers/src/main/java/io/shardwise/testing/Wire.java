package io.shardwise.testing;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Socket and line helpers shared by the raw protocol clients. */
final class Wire {
  static final byte[] CRLF = {'\r', '\n'};

  private Wire() {}

  /** Connects with {@code timeout} as both connect and read timeout. */
  static Socket connect(String host, int port, Duration timeout) {
    int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(millis);
      socket.connect(new InetSocketAddress(host, port), millis);
      return socket;
    } catch (IOException e) {
      closeQuietly(socket);
      throw new UncheckedIOException("cannot connect to " + host + ":" + port + ": " + e, e);
    }
  }

  static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // Nothing useful to do: the exchange already succeeded or failed.
    }
  }

  /** Reads a CRLF-terminated line (without the CRLF) as UTF-8. */
  static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    int previous = -1;
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException(
            "connection closed after " + line.size() + " bytes of an unterminated line");
      }
      if (previous == '\r' && b == '\n') {
        byte[] bytes = line.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
      }
      line.write(b);
      previous = b;
    }
  }

  /** Reads exactly {@code length} bytes followed by CRLF. */
  static byte[] readBlock(InputStream in, int length) throws IOException {
    byte[] data = in.readNBytes(length);
    if (data.length != length) {
      throw new EOFException(
          "expected " + length + " bytes but the connection closed after " + data.length);
    }
    if (in.read() != '\r' || in.read() != '\n') {
      throw new IOException("expected CRLF after a " + length + "-byte block");
    }
    return data;
  }

  /** A short printable rendering of bytes for messages. */
  static String preview(byte[] bytes) {
    int shown = Math.min(bytes.length, 40);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < shown; i++) {
      int b = bytes[i] & 0xff;
      if (b >= 0x20 && b < 0x7f) {
        text.append((char) b);
      } else {
        text.append(String.format("\\x%02x", b));
      }
    }
    return shown < bytes.length ? text + "..." : text.toString();
  }
}
