package io.shardwise.redis;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.SslOptions;
import io.shardwise.client.Secret;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/** Turns the security options into what Lettuce takes: credentials and {@link SslOptions}. */
final class RedisSecurity {

  private RedisSecurity() {}

  /**
   * Lettuce's {@link SslOptions} for {@code tls}, with every file read and every password checked
   * now, so that a bad setting fails at start-up rather than at each connection attempt.
   *
   * @throws IllegalArgumentException naming the file and the cause, never a password
   */
  static SslOptions sslOptions(RedisTlsOptions tls, Duration handshakeTimeout) {
    SslOptions.Builder ssl =
        SslOptions.builder().jdkSslProvider().handshakeTimeout(handshakeTimeout);
    if (tls.caFile().isPresent()) {
      Path ca = readable(tls.caFile().get(), "CA file");
      ssl.trustManager(ca.toFile());
    } else if (tls.trustStore().isPresent()) {
      Path file = readable(tls.trustStore().get(), "trust store");
      KeyStore store = load(file, tls.trustStorePassword().orElse(null), "trust store");
      try {
        TrustManagerFactory trust =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        ssl.trustManager(trust);
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException("TLS trust store " + file + " is not usable: " + e, e);
      }
    }
    if (tls.keyStore().isPresent()) {
      Path file = readable(tls.keyStore().get(), "key store");
      Secret password = tls.keyStorePassword().orElse(null);
      KeyStore store = load(file, password, "key store");
      char[] chars = password == null ? new char[0] : password.chars();
      try {
        KeyManagerFactory keys =
            KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, chars);
        ssl.keyManager(keys);
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException(
            "TLS key store " + file + ": cannot read the key (wrong password?): " + e, e);
      } finally {
        java.util.Arrays.fill(chars, '\0');
      }
    } else if (tls.certificateFile().isPresent()) {
      Path certificate = readable(tls.certificateFile().get(), "certificate file");
      Path key = readable(tls.privateKeyFile().orElseThrow(), "private key file");
      ssl.keyManager(
          certificate.toFile(),
          key.toFile(),
          tls.privateKeyPassword().map(Secret::chars).orElse(null));
    }
    SslOptions options = ssl.build();
    try {
      // Build the context once: reads the PEM files and the key, as each connection will.
      options.createSslContextBuilder().build();
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(
          "TLS settings are not usable ("
              + tls.describeTrust()
              + (tls.certificateFile().isPresent()
                  ? ", certificate " + tls.certificateFile().get() + ", key "
                      + tls.privateKeyFile().orElse(null)
                  : "")
              + "): "
              + rootMessage(e),
          e);
    }
    return options;
  }

  /** Hands {@code auth} to Lettuce; the password is copied out of the secret at each handshake. */
  static RedisCredentialsProvider credentialsProvider(RedisAuth auth) {
    return new AuthProvider(auth);
  }

  private static final class AuthProvider
      implements RedisCredentialsProvider.ImmediateRedisCredentialsProvider {
    private final RedisAuth auth;

    AuthProvider(RedisAuth auth) {
      this.auth = auth;
    }

    @Override
    public RedisCredentials resolveCredentialsNow() {
      return new MaskedCredentials(auth);
    }

    @Override
    public String toString() {
      return "credentials " + auth;
    }
  }

  /** Lettuce's credentials, without the password in {@link #toString()}. */
  private static final class MaskedCredentials implements RedisCredentials {
    private final RedisAuth auth;

    MaskedCredentials(RedisAuth auth) {
      this.auth = auth;
    }

    @Override
    public String getUsername() {
      return auth.username().orElse(null);
    }

    @Override
    public boolean hasUsername() {
      return auth.username().isPresent();
    }

    @Override
    public char[] getPassword() {
      return auth.password().map(Secret::chars).orElse(null);
    }

    @Override
    public boolean hasPassword() {
      return auth.password().isPresent();
    }

    @Override
    public String toString() {
      return auth.toString();
    }
  }

  private static Path readable(Path file, String what) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalArgumentException(
          "TLS " + what + " " + file + " is not a readable file");
    }
    return file;
  }

  private static KeyStore load(Path file, Secret password, String what) {
    char[] chars = password == null ? null : password.chars();
    try (InputStream in = Files.newInputStream(file)) {
      // The default type (PKCS12 on Java 17) also reads JKS stores.
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(in, chars);
      return store;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "TLS " + what + " " + file + " cannot be read (wrong password or not a key store): "
              + rootMessage(e),
          e);
    } finally {
      if (chars != null) {
        java.util.Arrays.fill(chars, '\0');
      }
    }
  }

  /** The innermost non-empty message of a chain. */
  static String rootMessage(Throwable t) {
    String message = t.toString();
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getMessage() != null && !c.getMessage().isEmpty()) {
        message = c.getMessage();
      }
    }
    return message;
  }
}
