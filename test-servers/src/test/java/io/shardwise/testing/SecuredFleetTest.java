package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS Redis and SASL memcached fleets, and the test certificates they use. */
class SecuredFleetTest {

  private static final char[] STORE_PASSWORD = "store-pass".toCharArray();

  @TempDir Path dir;

  @Test
  void tlsRedisAnswersOnlyOverTlsWithATrustedCertificateForItsAddress() throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("Shardwise Test CA");
    TestCertificates.Issued server = ca.issue("redis", "IP:127.0.0.1", "DNS:localhost");
    ServerTls tls =
        ServerTls.of(
            server.writeCertificate(dir.resolve("server.pem")),
            server.writePrivateKey(dir.resolve("server.key")),
            ca.writeCertificate(dir.resolve("ca.pem")));
    try (ServerFleet<RedisServer> fleet = ServerFleet.redisBuilder().tls(tls).build().start()) {
      RedisServer redis = fleet.server(0);
      assertThat(redis.isAnswering()).isTrue();
      assertThat(fleet.mode()).isEqualTo(ServerMode.LOCAL);

      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("ca", ca.certificate());
      assertThat(tlsPing(redis, trust)).isEqualTo("+PONG");

      // The plaintext helpers cannot talk to a TLS-only port.
      assertThatThrownBy(() -> redis.command("PING")).isInstanceOf(RuntimeException.class);

      // A client that trusts another authority refuses the server's certificate.
      KeyStore other = KeyStore.getInstance("PKCS12");
      other.load(null, null);
      other.setCertificateEntry("ca", TestCertificates.authority("Other CA").certificate());
      assertThatThrownBy(() -> tlsPing(redis, other)).isInstanceOf(SSLHandshakeException.class);

      // Failure injection still works.
      redis.kill();
      assertThat(redis.isAnswering()).isFalse();
      redis.restart();
      assertThat(redis.isAnswering()).isTrue();
    }
  }

  @Test
  void issuedCertificatesChainToTheirAuthorityAndCarryTheirNames() throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("Chain CA");
    TestCertificates.Issued leaf = ca.issue("leaf", "IP:127.0.0.1", "DNS:cache.example");
    leaf.certificate().verify(ca.certificate().getPublicKey());
    ca.certificate().verify(ca.certificate().getPublicKey());
    assertThat(ca.certificate().getBasicConstraints()).isGreaterThanOrEqualTo(0);
    assertThat(leaf.certificate().getBasicConstraints()).isEqualTo(-1);
    assertThat(leaf.certificate().getSubjectAlternativeNames())
        .extracting(entry -> (Object) entry.get(1))
        .containsExactly("127.0.0.1", "cache.example");
    assertThat(leaf.certificate().getIssuerX500Principal())
        .isEqualTo(ca.certificate().getSubjectX500Principal());

    Path keyStore = leaf.writeKeyStore(dir.resolve("leaf.p12"), STORE_PASSWORD);
    KeyStore loaded = KeyStore.getInstance("PKCS12");
    try (InputStream in = java.nio.file.Files.newInputStream(keyStore)) {
      loaded.load(in, STORE_PASSWORD);
    }
    assertThat(loaded.getCertificateChain("key")).hasSize(2);
    Path trustStore = ca.writeTrustStore(dir.resolve("trust.p12"), STORE_PASSWORD);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = java.nio.file.Files.newInputStream(trustStore)) {
      trust.load(in, STORE_PASSWORD);
    }
    assertThat(trust.isCertificateEntry("ca")).isTrue();
    assertThat(java.nio.file.Files.readString(leaf.writePrivateKey(dir.resolve("leaf.key"))))
        .startsWith("-----BEGIN PRIVATE KEY-----\n");
  }

  @Test
  void saslMemcachedAnswersTheBinaryVersionAndRefusesUnauthenticatedCommands() throws Exception {
    try (ServerFleet<MemcachedServer> fleet =
        ServerFleet.memcachedBuilder().sasl("app", "app-password").build().start()) {
      MemcachedServer memcached = fleet.server(0);
      assertThat(memcached.isAnswering()).isTrue();
      // A binary GET before authentication is refused with status 0x20 (authentication error).
      try (Socket socket = new Socket(memcached.host(), memcached.port())) {
        socket.setSoTimeout(2000);
        byte[] get = new byte[24 + 1];
        get[0] = (byte) 0x80;
        get[1] = 0x00; // GET
        get[3] = 1; // key length
        get[11] = 1; // total body length
        get[24] = 'k';
        OutputStream out = socket.getOutputStream();
        out.write(get);
        out.flush();
        byte[] header = new byte[24];
        new DataInputStream(socket.getInputStream()).readFully(header);
        assertThat(header[0] & 0xff).isEqualTo(0x81);
        assertThat(((header[6] & 0xff) << 8) | (header[7] & 0xff)).isEqualTo(0x20);
      }
    }
  }

  @Test
  void securedFleetsRefuseTheWrongKindOfServer() {
    assertThatThrownBy(() -> ServerFleet.memcachedBuilder().tls(null))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> ServerFleet.redisBuilder().sasl("a", "b"))
        .isInstanceOf(IllegalStateException.class);
  }

  private static String tlsPing(RedisServer redis, KeyStore trust) throws Exception {
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trustManagers.getTrustManagers(), null);
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket(redis.host(), redis.port())) {
      socket.setSoTimeout((int) Duration.ofSeconds(2).toMillis());
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      socket.setSSLParameters(parameters);
      socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return readLine(socket.getInputStream());
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int b;
    while ((b = in.read()) >= 0 && b != '\r') {
      line.append((char) b);
    }
    return line.toString();
  }
}
