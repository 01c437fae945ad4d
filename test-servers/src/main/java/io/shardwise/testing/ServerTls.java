package io.shardwise.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * TLS for a Redis fleet: the server listens with TLS only ({@code --port 0 --tls-port P}) on the
 * port the fleet gives it, with these PEM files. Make them with {@link TestCertificates}.
 *
 * <pre>{@code
 * ServerFleet.redisBuilder().tls(ServerTls.of(serverCert, serverKey, caCert)).build();
 * }</pre>
 */
public final class ServerTls {
  private final Path certificateFile;
  private final Path privateKeyFile;
  private final Path caCertificateFile;
  private final boolean requireClientCertificates;

  private ServerTls(
      Path certificateFile,
      Path privateKeyFile,
      Path caCertificateFile,
      boolean requireClientCertificates) {
    this.certificateFile = certificateFile;
    this.privateKeyFile = privateKeyFile;
    this.caCertificateFile = caCertificateFile;
    this.requireClientCertificates = requireClientCertificates;
  }

  /**
   * The server's certificate and key ({@code --tls-cert-file}, {@code --tls-key-file}) and the CA
   * that client certificates must chain to ({@code --tls-ca-cert-file}). Clients need no
   * certificate unless {@link #requiringClientCertificates()}.
   */
  public static ServerTls of(Path certificateFile, Path privateKeyFile, Path caCertificateFile) {
    return new ServerTls(
        readable(certificateFile, "certificateFile"),
        readable(privateKeyFile, "privateKeyFile"),
        readable(caCertificateFile, "caCertificateFile"),
        false);
  }

  /** The same, with {@code --tls-auth-clients yes}: clients must present a trusted certificate. */
  public ServerTls requiringClientCertificates() {
    return new ServerTls(certificateFile, privateKeyFile, caCertificateFile, true);
  }

  public Path certificateFile() {
    return certificateFile;
  }

  public Path privateKeyFile() {
    return privateKeyFile;
  }

  public Path caCertificateFile() {
    return caCertificateFile;
  }

  public boolean requireClientCertificates() {
    return requireClientCertificates;
  }

  private static Path readable(Path file, String name) {
    Objects.requireNonNull(file, name);
    if (!Files.isReadable(file)) {
      throw new IllegalArgumentException(name + " is not a readable file: " + file);
    }
    return file.toAbsolutePath();
  }

  @Override
  public String toString() {
    return "ServerTls[cert="
        + certificateFile
        + ", ca="
        + caCertificateFile
        + (requireClientCertificates ? ", client certificates required" : "")
        + "]";
  }
}
