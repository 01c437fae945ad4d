package io.shardwise.redis;

import io.shardwise.client.Secret;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * TLS for every connection of a {@link RedisBackend}: which certificates to trust, which one to
 * present, and whether the server's certificate must name the host connected to.
 *
 * <pre>{@code
 * RedisTlsOptions tls = RedisTlsOptions.builder()
 *     .caFile(Path.of("/etc/redis/ca.pem"))                 // or trustStore(path, password)
 *     .certificate(Path.of("client.pem"), Path.of("client.key")) // only if the server asks
 *     .build();
 * RedisBackendOptions options = RedisBackendOptions.builder().tls(tls).build();
 * }</pre>
 *
 * <p>Trust: a PEM file of CA certificates ({@link Builder#caFile}), or a key store (PKCS#12 or JKS)
 * of trusted certificates ({@link Builder#trustStore}), or, with neither, the JDK's default trust
 * store. Client certificate: a key store with the key and its chain ({@link Builder#keyStore}), or
 * a PEM certificate chain and a PKCS#8 PEM key ({@link Builder#certificate}). Hostname
 * verification is on by default; turning it off still checks that the certificate chains to a
 * trusted CA. There is no "trust everything" setting.
 *
 * <p>Files are read when the backend is created, which fails at once, naming the file, if one
 * cannot be read or a password is wrong. The handshake is bounded by the backend's connect
 * timeout. {@link #toString()} shows paths, never passwords.
 */
public final class RedisTlsOptions {

  /** Hostname verification: on. */
  public static final boolean DEFAULT_VERIFY_HOSTNAME = true;

  private static final RedisTlsOptions DEFAULTS = new Builder().build();

  private final Path caFile;
  private final Path trustStore;
  private final Secret trustStorePassword;
  private final Path keyStore;
  private final Secret keyStorePassword;
  private final Path certificateFile;
  private final Path privateKeyFile;
  private final Secret privateKeyPassword;
  private final boolean verifyHostname;

  private RedisTlsOptions(Builder builder) {
    this.caFile = builder.caFile;
    this.trustStore = builder.trustStore;
    this.trustStorePassword = builder.trustStorePassword;
    this.keyStore = builder.keyStore;
    this.keyStorePassword = builder.keyStorePassword;
    this.certificateFile = builder.certificateFile;
    this.privateKeyFile = builder.privateKeyFile;
    this.privateKeyPassword = builder.privateKeyPassword;
    this.verifyHostname = builder.verifyHostname;
  }

  /** TLS with the JDK's default trust store, no client certificate, hostname verification on. */
  public static RedisTlsOptions defaults() {
    return DEFAULTS;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these options. */
  public Builder mutate() {
    Builder builder = new Builder();
    builder.caFile = caFile;
    builder.trustStore = trustStore;
    builder.trustStorePassword = trustStorePassword;
    builder.keyStore = keyStore;
    builder.keyStorePassword = keyStorePassword;
    builder.certificateFile = certificateFile;
    builder.privateKeyFile = privateKeyFile;
    builder.privateKeyPassword = privateKeyPassword;
    builder.verifyHostname = verifyHostname;
    return builder;
  }

  /** PEM file of the CA certificates to trust. */
  public Optional<Path> caFile() {
    return Optional.ofNullable(caFile);
  }

  /** Key store (PKCS#12 or JKS) of the certificates to trust. */
  public Optional<Path> trustStore() {
    return Optional.ofNullable(trustStore);
  }

  public Optional<Secret> trustStorePassword() {
    return Optional.ofNullable(trustStorePassword);
  }

  /** Key store (PKCS#12 or JKS) with the client's key and certificate chain. */
  public Optional<Path> keyStore() {
    return Optional.ofNullable(keyStore);
  }

  public Optional<Secret> keyStorePassword() {
    return Optional.ofNullable(keyStorePassword);
  }

  /** PEM file of the client's certificate chain, leaf first. */
  public Optional<Path> certificateFile() {
    return Optional.ofNullable(certificateFile);
  }

  /** PKCS#8 PEM file of the client's private key. */
  public Optional<Path> privateKeyFile() {
    return Optional.ofNullable(privateKeyFile);
  }

  /** Password of an encrypted {@link #privateKeyFile()}. */
  public Optional<Secret> privateKeyPassword() {
    return Optional.ofNullable(privateKeyPassword);
  }

  /** Whether the server's certificate must name the host (or IP address) connected to. */
  public boolean verifyHostname() {
    return verifyHostname;
  }

  /** Whether a client certificate is configured. */
  boolean hasClientCertificate() {
    return keyStore != null || certificateFile != null;
  }

  /** Where trust comes from, for messages: the file, or the JDK's default trust store. */
  String describeTrust() {
    if (caFile != null) {
      return "the CA file " + caFile;
    }
    if (trustStore != null) {
      return "the trust store " + trustStore;
    }
    return "the JDK's default trust store";
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof RedisTlsOptions)) {
      return false;
    }
    RedisTlsOptions other = (RedisTlsOptions) o;
    return verifyHostname == other.verifyHostname
        && Objects.equals(caFile, other.caFile)
        && Objects.equals(trustStore, other.trustStore)
        && Objects.equals(trustStorePassword, other.trustStorePassword)
        && Objects.equals(keyStore, other.keyStore)
        && Objects.equals(keyStorePassword, other.keyStorePassword)
        && Objects.equals(certificateFile, other.certificateFile)
        && Objects.equals(privateKeyFile, other.privateKeyFile)
        && Objects.equals(privateKeyPassword, other.privateKeyPassword);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        caFile, trustStore, keyStore, certificateFile, privateKeyFile, verifyHostname);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("RedisTlsOptions[trust=");
    if (caFile != null) {
      s.append("caFile ").append(caFile);
    } else if (trustStore != null) {
      s.append("trustStore ").append(trustStore);
    } else {
      s.append("JDK default");
    }
    if (trustStorePassword != null) {
      s.append(", trustStorePassword=").append(Secret.MASK);
    }
    if (keyStore != null) {
      s.append(", keyStore=").append(keyStore);
    }
    if (keyStorePassword != null) {
      s.append(", keyStorePassword=").append(Secret.MASK);
    }
    if (certificateFile != null) {
      s.append(", certificateFile=").append(certificateFile);
      s.append(", privateKeyFile=").append(privateKeyFile);
    }
    if (privateKeyPassword != null) {
      s.append(", privateKeyPassword=").append(Secret.MASK);
    }
    return s.append(", verifyHostname=").append(verifyHostname).append(']').toString();
  }

  /** Builds {@link RedisTlsOptions}. */
  public static final class Builder {
    private Path caFile;
    private Path trustStore;
    private Secret trustStorePassword;
    private Path keyStore;
    private Secret keyStorePassword;
    private Path certificateFile;
    private Path privateKeyFile;
    private Secret privateKeyPassword;
    private boolean verifyHostname = DEFAULT_VERIFY_HOSTNAME;

    private Builder() {}

    /** Trust the CA certificates in this PEM file (instead of the JDK's default trust store). */
    public Builder caFile(Path pemFile) {
      this.caFile = Objects.requireNonNull(pemFile, "caFile");
      return this;
    }

    /**
     * Trust the certificates in this key store (PKCS#12 or JKS); {@code password} may be null for
     * a store without integrity password.
     */
    public Builder trustStore(Path file, Secret password) {
      this.trustStore = Objects.requireNonNull(file, "trustStore");
      this.trustStorePassword = password;
      return this;
    }

    /**
     * Present the key and certificate chain in this key store (PKCS#12 or JKS) when the server
     * asks for a client certificate; {@code password} protects the store and the key.
     */
    public Builder keyStore(Path file, Secret password) {
      this.keyStore = Objects.requireNonNull(file, "keyStore");
      this.keyStorePassword = password;
      return this;
    }

    /** Present this PEM certificate chain and unencrypted PKCS#8 PEM key. */
    public Builder certificate(Path certificateFile, Path privateKeyFile) {
      return certificate(certificateFile, privateKeyFile, null);
    }

    /** Present this PEM certificate chain and PKCS#8 PEM key, encrypted with {@code password}. */
    public Builder certificate(Path certificateFile, Path privateKeyFile, Secret keyPassword) {
      this.certificateFile = Objects.requireNonNull(certificateFile, "certificateFile");
      this.privateKeyFile = Objects.requireNonNull(privateKeyFile, "privateKeyFile");
      this.privateKeyPassword = keyPassword;
      return this;
    }

    /**
     * Whether the server's certificate must name the host (or IP address) connected to (default
     * true). False still requires a certificate that chains to a trusted CA.
     */
    public Builder verifyHostname(boolean verify) {
      this.verifyHostname = verify;
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalStateException if both a CA file and a trust store, or both a key store and a
     *     PEM certificate, were set
     */
    public RedisTlsOptions build() {
      if (caFile != null && trustStore != null) {
        throw new IllegalStateException(
            "TLS trust comes from a CA file or a trust store, not both: caFile "
                + caFile
                + ", trustStore "
                + trustStore);
      }
      if (keyStore != null && certificateFile != null) {
        throw new IllegalStateException(
            "the client certificate comes from a key store or PEM files, not both: keyStore "
                + keyStore
                + ", certificateFile "
                + certificateFile);
      }
      return new RedisTlsOptions(this);
    }
  }
}
