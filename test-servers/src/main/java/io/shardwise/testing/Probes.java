package io.shardwise.testing;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.OptionalLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/** Readiness checks that send a real request. */
final class Probes {
  static final Duration PROBE_TIMEOUT = Duration.ofMillis(1000);

  private Probes() {}

  /**
   * Whether the server of {@code spec} answers: {@link #answers(ServerKind, String, int,
   * Duration)} for a plain server, the binary {@code version} for SASL memcached (the one command
   * it takes before authentication), a completed TLS handshake for TLS Redis.
   */
  static boolean answers(ServerSpec spec, String host, int port, Duration timeout) {
    if (spec.sasl()) {
      return answersBinaryVersion(host, port, timeout);
    }
    if (spec.tls() != null) {
      return completesTlsHandshake(host, port, timeout);
    }
    return answers(spec.kind(), host, port, timeout);
  }

  /**
   * memcached {@code version} or Redis {@code PING} got a protocol answer. An error reply counts as
   * an answer (a server started with {@code --requirepass} says {@code NOAUTH}), except Redis
   * {@code LOADING} and {@code BUSY}, which mean it is not serving yet.
   */
  static boolean answers(ServerKind kind, String host, int port, Duration timeout) {
    try {
      if (kind == ServerKind.MEMCACHED) {
        return !new MemcachedTextClient(host, port, timeout).version().isEmpty();
      }
      return "PONG".equals(new RespClient(host, port, timeout).ping());
    } catch (ErrorReplyException e) {
      return !(e.reply().startsWith("LOADING") || e.reply().startsWith("BUSY"));
    } catch (UncheckedIOException | ClassCastException e) {
      return false;
    }
  }

  /** The pid the server reports about itself; empty for servers the raw helpers cannot talk to. */
  static OptionalLong reportedPid(ServerSpec spec, String host, int port, Duration timeout) {
    return spec.secured() ? OptionalLong.empty() : reportedPid(spec.kind(), host, port, timeout);
  }

  /** The pid the server reports about itself ({@code stats pid}, {@code INFO server}). */
  static OptionalLong reportedPid(ServerKind kind, String host, int port, Duration timeout) {
    try {
      String pid =
          kind == ServerKind.MEMCACHED
              ? new MemcachedTextClient(host, port, timeout).stats().get("pid")
              : new RespClient(host, port, timeout).info("server").get("process_id");
      return pid == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(pid.trim()));
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** A binary-protocol {@code version} request got a binary response header. */
  private static boolean answersBinaryVersion(String host, int port, Duration timeout) {
    Socket socket;
    try {
      socket = Wire.connect(host, port, timeout);
    } catch (UncheckedIOException e) {
      return false;
    }
    try {
      byte[] request = new byte[24];
      request[0] = (byte) 0x80; // request magic
      request[1] = 0x0b; // VERSION
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      byte[] header = new byte[24];
      new DataInputStream(socket.getInputStream()).readFully(header);
      return (header[0] & 0xff) == 0x81 && header[1] == 0x0b;
    } catch (IOException e) {
      return false;
    } finally {
      Wire.closeQuietly(socket);
    }
  }

  /**
   * The server completed a TLS handshake. Its certificate is not checked: this asks whether it is
   * up, not whether it is trusted.
   */
  private static boolean completesTlsHandshake(String host, int port, Duration timeout) {
    Socket socket;
    try {
      socket = Wire.connect(host, port, timeout);
    } catch (UncheckedIOException e) {
      return false;
    }
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new AnyCertificate()}, null);
      try (SSLSocket tls =
          (SSLSocket) context.getSocketFactory().createSocket(socket, host, port, true)) {
        tls.startHandshake();
        return true;
      }
    } catch (IOException | GeneralSecurityException e) {
      return false;
    } finally {
      Wire.closeQuietly(socket);
    }
  }

  /** Trusts every certificate: only for the readiness probe on a loopback port. */
  private static final class AnyCertificate implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
