package io.shardwise.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.shardwise.routing.Node;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Tells security failures of one node apart from node failures, and says what is wrong in words
 * that name the cause but no secret.
 *
 * <ul>
 *   <li>Authentication: {@code NOAUTH} (no password where one is needed), {@code WRONGPASS} (wrong
 *       user or password, or a disabled user), {@code AUTH} sent to a server without password.
 *   <li>Permission: {@code NOPERM} from the ACL, on a request or on a command every connection
 *       needs ({@code SELECT}), and the {@code ERR} of a script whose command the ACL refused.
 *   <li>TLS: an untrusted certificate, a certificate that does not name the host, a refused or
 *       missing client certificate, a plaintext answer on a TLS connection.
 * </ul>
 *
 * <p>Two mismatches look like node failures on the wire and are confirmed with a probe before they
 * are called TLS errors: TLS to a plaintext port (the server waits for a command line and never
 * answers the TLS hello: the handshake times out, exactly as with a hung server), and plaintext to
 * a TLS port (the server drops the connection, as a crashing server might). The probe opens one
 * connection of its own and sends {@code PING} in plaintext, or starts a TLS handshake that it
 * abandons as soon as the server's certificate arrives; it never sends credentials.
 */
final class RedisSecurityDiagnosis {

  /**
   * How Redis (6.2, 7.0) words an ACL refusal met by a script's {@code redis.call}, inside an
   * {@code ERR} reply: "can't run this command or subcommand", "can't access at least one of the
   * keys ...".
   */
  private static final String SCRIPT_ACL_REFUSAL = "The user executing the script can't";

  private final Node node;
  private final RedisAuth auth;
  private final RedisTlsOptions tls;
  private final Duration probeTimeout;

  RedisSecurityDiagnosis(Node node, RedisAuth auth, RedisTlsOptions tls, Duration probeTimeout) {
    this.node = node;
    this.auth = auth;
    this.tls = tls;
    this.probeTimeout = probeTimeout;
  }

  /** A failed connection attempt as a security failure, or null if it is none (or unconfirmed). */
  SecurityFailure ofConnectFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof RedisCommandExecutionException) {
        SecurityFailure reply = ofReply(t.getMessage(), failure, true);
        if (reply != null) {
          return reply;
        }
      }
      if (t instanceof NotSslRecordException) {
        return tlsFailure(
            "TLS is on, but the server answered in plaintext: "
                + node.address()
                + " is not a TLS port",
            failure);
      }
      if (t instanceof SslHandshakeTimeoutException) {
        return null; // a hung server, or a plaintext one: see mayBeTlsMismatch
      }
      if (t instanceof SSLException) {
        return ofTlsHandshake((SSLException) t, failure);
      }
    }
    return null;
  }

  /** An error reply to a request as a security failure ({@code NOPERM}, {@code NOAUTH}) or null. */
  SecurityFailure ofRequestFailure(Throwable failure) {
    if (failure instanceof RedisCommandExecutionException) {
      return ofReply(failure.getMessage(), failure, false);
    }
    if (failure instanceof RedisErrorReplyException) {
      return ofReply(((RedisErrorReplyException) failure).reply(), failure, false);
    }
    return null;
  }

  /**
   * Whether {@code failure} may hide a TLS mismatch that {@link #probeTlsMismatch()} can confirm:
   * with TLS on, a handshake that timed out; with TLS off, a connection dropped during the
   * handshake without a reply.
   */
  boolean mayBeTlsMismatch(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (tls != null
          && (t instanceof SslHandshakeTimeoutException
              || t instanceof RedisCommandTimeoutException)) {
        return true;
      }
      if (tls == null
          && (t instanceof ClosedChannelException
              || (t instanceof SocketException && mentions(t, "reset"))
              || (t instanceof IOException && mentions(t, "reset by peer"))
              || (t instanceof RedisConnectionException && mentions(t, "closed prematurely")))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Blocking: asks the server directly whether it speaks the other protocol. Returns the TLS
   * failure when it does, null when it does not answer either (then the original failure stands).
   */
  SecurityFailure probeTlsMismatch() {
    if (tls != null) {
      if (answersPlaintextPing()) {
        return tlsFailure(
            "TLS is on, but the server answers plaintext: "
                + node.address()
                + " is not a TLS port (it replied to a plaintext PING)",
            null);
      }
    } else if (presentsCertificate()) {
      return tlsFailure(
          "TLS is off, but "
              + node.address()
              + " is a TLS port (the server answered a TLS hello with a certificate); turn TLS on",
          null);
    }
    return null;
  }

  private SecurityFailure ofReply(String reply, Throwable cause, boolean handshake) {
    if (reply == null) {
      return null;
    }
    String code = RedisErrorReplyException.errorCode(reply);
    if (code.equals("NOAUTH")) {
      return new SecurityFailure(
          SecurityFailure.Kind.AUTHENTICATION,
          auth == null
              ? "authentication failed: the server requires a password and none is configured ("
                  + reply
                  + ")"
              : "authentication failed: the server asks for authentication (" + reply + ")",
          cause);
    }
    if (code.equals("WRONGPASS")) {
      return new SecurityFailure(
          SecurityFailure.Kind.AUTHENTICATION,
          "authentication failed: the server refused "
              + who()
              + " with "
              + (auth == null ? "no password" : auth.describePassword())
              + " ("
              + reply
              + ")",
          cause);
    }
    if (code.equals("ERR")
        && handshake
        && (reply.contains("without any password configured")
            || reply.contains("no password is set"))) {
      return new SecurityFailure(
          SecurityFailure.Kind.AUTHENTICATION,
          "authentication failed: a password is configured, but the server has none for the"
              + " default user; remove the password or set one on the server ("
              + reply
              + ")",
          cause);
    }
    if (code.equals("ERR") && !handshake && reply.contains(SCRIPT_ACL_REFUSAL)) {
      // A command of a Lua script refused by the ACL: Redis 7.0 replies ERR, not NOPERM.
      return new SecurityFailure(
          SecurityFailure.Kind.PERMISSION,
          "permission denied for " + who() + " in the script that incr and decr run ("
              + withoutScriptTrailer(reply)
              + "); counters need the commands of that script, see docs/security.md",
          cause);
    }
    if (code.equals("NOPERM")) {
      return new SecurityFailure(
          SecurityFailure.Kind.PERMISSION,
          handshake
              ? "permission denied: "
                  + who()
                  + " may not run a command every connection needs ("
                  + reply
                  + ")"
              : "permission denied for " + who() + " (" + reply + ")",
          cause);
    }
    return null;
  }

  /**
   * {@code reply} without the trailer Redis appends to errors inside a script ({@code script:
   * <sha1>, on @user_script:<line>.}), which says nothing to the user of a counter.
   */
  static String withoutScriptTrailer(String reply) {
    return reply.replaceFirst("\\s*script: [0-9a-f]{40}, on @user_script:\\d+\\.?$", "");
  }

  private SecurityFailure ofTlsHandshake(SSLException ssl, Throwable failure) {
    String message = ssl.getMessage() == null ? ssl.toString() : ssl.getMessage();
    String lower = message.toLowerCase(Locale.ROOT);
    if (hasCause(ssl, CertificateException.class)
        && (lower.contains("subject alternative name") || lower.contains("no name matching"))) {
      return tlsFailure(
          "TLS handshake failed: the server's certificate does not name "
              + node.host()
              + " ("
              + message
              + "); connect by a name the certificate holds, or turn hostname verification off"
              + " (the certificate chain is checked either way)",
          failure);
    }
    if (lower.contains("pkix")
        || hasCause(ssl, CertPathBuilderException.class)
        || hasCause(ssl, CertPathValidatorException.class)) {
      return tlsFailure(
          "TLS handshake failed: the server's certificate is not trusted by "
              + (tls == null ? "the JDK's default trust store" : tls.describeTrust())
              + " ("
              + message
              + ")",
          failure);
    }
    if (lower.contains("certificate_required")) {
      return tlsFailure(
          "TLS handshake failed: the server requires a client certificate and "
              + (tls != null && tls.hasClientCertificate()
                  ? "did not accept the configured one"
                  : "none is configured")
              + " ("
              + message
              + ")",
          failure);
    }
    if (lower.contains("bad_certificate")
        || lower.contains("unknown_ca")
        || lower.contains("certificate_unknown")
        || lower.contains("unsupported_certificate")
        || lower.contains("certificate_expired")) {
      return tlsFailure(
          "TLS handshake failed: the server refused the "
              + (tls != null && tls.hasClientCertificate()
                  ? "client certificate"
                  : "session (no client certificate is configured)")
              + " ("
              + message
              + ")",
          failure);
    }
    if (lower.contains("unrecognized ssl message") || lower.contains("not an ssl/tls record")) {
      return tlsFailure(
          "TLS is on, but the server answered in plaintext: "
              + node.address()
              + " is not a TLS port",
          failure);
    }
    return tlsFailure("TLS handshake failed: " + message, failure);
  }

  private String who() {
    return auth == null || auth.username().isEmpty()
        ? "the default user"
        : "user '" + auth.username().get() + "'";
  }

  private static SecurityFailure tlsFailure(String description, Throwable cause) {
    return new SecurityFailure(SecurityFailure.Kind.TLS, description, cause);
  }

  private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  private static boolean mentions(Throwable t, String text) {
    return t.getMessage() != null && t.getMessage().toLowerCase(Locale.ROOT).contains(text);
  }

  // ---- probes (blocking) -----------------------------------------------------------------------

  private Socket connect() throws IOException {
    int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, probeTimeout.toMillis()));
    Socket socket = new Socket();
    try {
      socket.setSoTimeout(millis);
      socket.connect(new InetSocketAddress(node.host(), node.port()), millis);
      return socket;
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  /**
   * Blocking: whether the server answers a {@code PING} sent on a socket of its own within the
   * probe timeout (any RESP reply, {@code -NOAUTH} too). Needs little of this process: a socket
   * that blocks until the reply is there, no event loop. So when a connection attempt ran out its
   * time and this is answered, the attempt ran out because of this client (a starved or stopped
   * process), not the server. Always false with TLS on, which this plaintext probe cannot tell.
   */
  boolean answersPing() {
    return tls == null && answersPlaintextPing();
  }

  /**
   * Blocking: whether the server answers a {@code PING} sent as a RESP2 array on a socket of its own
   * with a status reply ({@code +PONG}) within the probe timeout (twemproxy closes the connection on
   * an inline command, so a proxy needs the array). An error reply is not enough: a server that
   * refuses every connection ({@code -ERR max number of clients reached}) may close a handshake
   * for that reason, not for want of RESP3. Always false with TLS on.
   */
  boolean answersRespPing() {
    return tls == null && firstByteOfPingReply("*1\r\n$4\r\nPING\r\n") == '+';
  }

  /** Plaintext {@code PING}: a RESP reply ({@code +PONG}, {@code -NOAUTH ...}) means plaintext. */
  private boolean answersPlaintextPing() {
    int first = firstByteOfPingReply("PING\r\n");
    return first == '+' || first == '-';
  }

  /** The first byte the server answers {@code ping} with on a socket of its own, or -1. */
  private int firstByteOfPingReply(String ping) {
    try (Socket socket = connect()) {
      OutputStream out = socket.getOutputStream();
      out.write(ping.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return socket.getInputStream().read();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * A TLS hello answered with a certificate means a TLS port. The handshake is abandoned as soon as
   * the certificate arrives (the trust manager refuses it): nothing else is sent.
   */
  private boolean presentsCertificate() {
    CertificateSeen seen = new CertificateSeen();
    try (Socket plain = connect()) {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {seen}, null);
      try (SSLSocket socket =
          (SSLSocket)
              context.getSocketFactory().createSocket(plain, node.host(), node.port(), false)) {
        socket.startHandshake();
      }
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      // Expected: the trust manager refuses every certificate.
    }
    return seen.seen;
  }

  /** Records that the server presented a certificate, then refuses it. */
  private static final class CertificateSeen implements X509TrustManager {
    volatile boolean seen;

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw new CertificateException("probe only");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      seen = chain != null && chain.length > 0;
      throw new CertificateException("probe only: the server speaks TLS");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
