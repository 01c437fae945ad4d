package io.shardwise.redis;

import io.shardwise.client.Secret;
import io.shardwise.spi.Backend;
import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.SettingsReader;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Creates a {@link RedisBackend} for {@code shardwise.backend=redis}. Its keys, under {@code
 * shardwise.redis.}:
 *
 * <ul>
 *   <li>{@code database}: the logical database every connection selects, {@code >= 0} (default 0)
 *   <li>{@code client-name}: the name {@code CLIENT SETNAME} gives every connection (default none)
 *   <li>{@code username}, {@code password}: {@code AUTH} on every connection; a password alone is
 *       the {@code default} user, a user name needs a password. The password is a {@link
 *       Secret#resolve(String) secret reference}: {@code env:NAME}, {@code file:/path}, {@code
 *       literal:text} or the password itself
 *   <li>{@code consolidate-flushes}: whether the commands queued on a connection go out with one
 *       flush (default true; see {@link RedisBackendOptions.Builder#consolidateFlushes})
 *   <li>{@code tls.enabled}: TLS on every connection (default false); the other {@code tls.*} keys
 *       are problems unless it is true
 *   <li>{@code tls.ca-file} or {@code tls.trust-store} (with {@code tls.trust-store-password}):
 *       what to trust (default: the JDK's trust store)
 *   <li>{@code tls.key-store} (with {@code tls.key-store-password}), or {@code
 *       tls.certificate-file} and {@code tls.private-key-file} (with {@code
 *       tls.private-key-password}): the client certificate, if the server asks for one
 *   <li>{@code tls.verify-hostname}: whether the server's certificate must name the host (default
 *       true)
 * </ul>
 *
 * <p>Every password key is a {@link #secretKeys() secret}: its value never appears in a problem, a
 * log or a {@code toString()}. References are resolved and TLS files read when the settings are
 * checked, so that a missing variable, an unreadable file or a wrong store password is reported at
 * start-up with the other problems, naming its key. Per-node credentials ({@link
 * RedisBackendOptions.Builder#nodeCredentials}) have no key: build the backend with {@link
 * RedisBackend#create(RedisBackendOptions)} for those.
 *
 * <p>The request timeout is the client's ({@code shardwise.timeout}). Found by {@link
 * java.util.ServiceLoader}; applications use {@link RedisBackend#create} directly.
 */
public final class RedisBackendProvider implements BackendProvider {

  private static final String PREFIX = "shardwise.redis.";

  /** {@code shardwise.redis.database}. */
  public static final String DATABASE = "database";

  /** {@code shardwise.redis.client-name}. */
  public static final String CLIENT_NAME = "client-name";

  /** {@code shardwise.redis.username}: the ACL user of {@code AUTH}. */
  public static final String USERNAME = "username";

  /** {@code shardwise.redis.password}: the password of {@code AUTH}, a secret reference. */
  public static final String PASSWORD = "password";

  /**
   * {@code shardwise.redis.consolidate-flushes}: {@code true} (default) or {@code false}; see
   * {@link RedisBackendOptions.Builder#consolidateFlushes}.
   */
  public static final String CONSOLIDATE_FLUSHES = "consolidate-flushes";

  /** {@code shardwise.redis.tls.enabled}: {@code true} or {@code false} (default). */
  public static final String TLS_ENABLED = "tls.enabled";

  /** {@code shardwise.redis.tls.ca-file}: PEM file of the CA certificates to trust. */
  public static final String TLS_CA_FILE = "tls.ca-file";

  /** {@code shardwise.redis.tls.trust-store}: key store (PKCS#12, JKS) of trusted certificates. */
  public static final String TLS_TRUST_STORE = "tls.trust-store";

  /** {@code shardwise.redis.tls.trust-store-password}: a secret reference. */
  public static final String TLS_TRUST_STORE_PASSWORD = "tls.trust-store-password";

  /** {@code shardwise.redis.tls.key-store}: key store with the client's key and certificate. */
  public static final String TLS_KEY_STORE = "tls.key-store";

  /** {@code shardwise.redis.tls.key-store-password}: a secret reference. */
  public static final String TLS_KEY_STORE_PASSWORD = "tls.key-store-password";

  /** {@code shardwise.redis.tls.certificate-file}: PEM file of the client's certificate chain. */
  public static final String TLS_CERTIFICATE_FILE = "tls.certificate-file";

  /** {@code shardwise.redis.tls.private-key-file}: PKCS#8 PEM file of the client's key. */
  public static final String TLS_PRIVATE_KEY_FILE = "tls.private-key-file";

  /** {@code shardwise.redis.tls.private-key-password}: a secret reference. */
  public static final String TLS_PRIVATE_KEY_PASSWORD = "tls.private-key-password";

  /** {@code shardwise.redis.tls.verify-hostname}: {@code true} (default) or {@code false}. */
  public static final String TLS_VERIFY_HOSTNAME = "tls.verify-hostname";

  /** The {@code tls.*} keys besides {@code tls.enabled}, in the order they are checked. */
  private static final List<String> TLS_KEYS =
      List.of(
          TLS_CA_FILE,
          TLS_TRUST_STORE,
          TLS_TRUST_STORE_PASSWORD,
          TLS_KEY_STORE,
          TLS_KEY_STORE_PASSWORD,
          TLS_CERTIFICATE_FILE,
          TLS_PRIVATE_KEY_FILE,
          TLS_PRIVATE_KEY_PASSWORD,
          TLS_VERIFY_HOSTNAME);

  private static final Set<String> SECRET_KEYS =
      ordered(PASSWORD, TLS_TRUST_STORE_PASSWORD, TLS_KEY_STORE_PASSWORD, TLS_PRIVATE_KEY_PASSWORD);

  private static final Set<String> KEYS =
      keys(DATABASE, CLIENT_NAME, USERNAME, PASSWORD, CONSOLIDATE_FLUSHES);


  @Override
  public String name() {
    return "redis";
  }

  @Override
  public Set<String> keys() {
    return KEYS;
  }

  @Override
  public Set<String> secretKeys() {
    return SECRET_KEYS;
  }

  @Override
  public List<String> validate(Map<String, String> settings) {
    SettingsReader reader = reader(settings);
    options(reader, RedisBackendOptions.DEFAULT_COMMAND_TIMEOUT);
    return reader.problems();
  }

  @Override
  public Backend create(Map<String, String> settings, Duration timeout) {
    SettingsReader reader = reader(settings);
    RedisBackendOptions options = options(reader, timeout);
    reader.throwIfProblems();
    return RedisBackend.create(options);
  }

  private static SettingsReader reader(Map<String, String> settings) {
    return SettingsReader.of(PREFIX, settings);
  }

  private static RedisBackendOptions options(SettingsReader reader, Duration timeout) {
    RedisBackendOptions.Builder options =
        RedisBackendOptions.builder()
            .database(
                reader.integer(
                    DATABASE, RedisBackendOptions.DEFAULT_DATABASE, 0, Integer.MAX_VALUE))
            .commandTimeout(timeout)
            .consolidateFlushes(
                reader.bool(CONSOLIDATE_FLUSHES, RedisBackendOptions.DEFAULT_CONSOLIDATE_FLUSHES));
    reader
        .text(CLIENT_NAME)
        .ifPresent(
            name -> {
              try {
                options.clientName(name);
              } catch (IllegalArgumentException e) {
                reader.problem(
                    CLIENT_NAME,
                    "'" + name + "' is not allowed; expected printable ASCII without spaces");
              }
            });
    readCredentials(reader, options);
    options.tls(readTls(reader));
    return options.build();
  }

  private static void readCredentials(SettingsReader reader, RedisBackendOptions.Builder options) {
    Optional<String> username = reader.text(USERNAME);
    boolean passwordSet = reader.secret(PASSWORD).isPresent();
    Secret password = reader.resolvedSecret(PASSWORD).orElse(null);
    boolean usernameUsable = false;
    if (username.isPresent()) {
      try {
        RedisAuth.checkUsername(username.get());
        usernameUsable = true;
      } catch (IllegalArgumentException e) {
        reader.problem(
            USERNAME,
            "'"
                + KeyRules.printable(username.get())
                + "' is not allowed; expected an ACL user name without spaces or control"
                + " characters");
      }
      if (usernameUsable && !passwordSet) {
        reader.problem(
            USERNAME,
            "'"
                + username.get()
                + "' is set but "
                + PREFIX
                + PASSWORD
                + " is not; AUTH needs both (a password alone is the default user)");
      }
    }
    options.password(password);
    if (usernameUsable && password != null) {
      options.username(username.get());
    }
  }

  /** The TLS options, or null for plaintext (also when they have problems). */
  private static RedisTlsOptions readTls(SettingsReader reader) {
    int before = reader.problems().size();
    boolean enabled = reader.bool(TLS_ENABLED, false);
    boolean enabledIsWrong = reader.problems().size() > before;
    if (!enabled) {
      for (String key : TLS_KEYS) {
        boolean set =
            SECRET_KEYS.contains(key)
                ? reader.secret(key).isPresent()
                : reader.text(key).isPresent();
        if (set && !enabledIsWrong) {
          reader.problem(
              key,
              "applies only when "
                  + PREFIX
                  + TLS_ENABLED
                  + " is true, but it is "
                  + (reader.isSet(TLS_ENABLED) ? "false" : "not set (default false)")
                  + "; the connections would not use TLS");
        }
      }
      return null;
    }
    before = reader.problems().size();
    Path caFile = file(reader, TLS_CA_FILE, "a PEM file of the CA certificates to trust");
    Path trustStore = file(reader, TLS_TRUST_STORE, "a key store (PKCS#12 or JKS) to trust");
    Secret trustStorePassword = reader.resolvedSecret(TLS_TRUST_STORE_PASSWORD).orElse(null);
    Path keyStore =
        file(reader, TLS_KEY_STORE, "a key store (PKCS#12 or JKS) with the client's key");
    Secret keyStorePassword = reader.resolvedSecret(TLS_KEY_STORE_PASSWORD).orElse(null);
    Path certificateFile =
        file(reader, TLS_CERTIFICATE_FILE, "a PEM file of the client's certificate chain");
    Path privateKeyFile =
        file(reader, TLS_PRIVATE_KEY_FILE, "a PKCS#8 PEM file of the client's private key");
    Secret privateKeyPassword = reader.resolvedSecret(TLS_PRIVATE_KEY_PASSWORD).orElse(null);
    boolean verifyHostname =
        reader.bool(TLS_VERIFY_HOSTNAME, RedisTlsOptions.DEFAULT_VERIFY_HOSTNAME);

    if (reader.isSet(TLS_CA_FILE) && reader.isSet(TLS_TRUST_STORE)) {
      reader.problem(
          TLS_TRUST_STORE,
          "set " + PREFIX + TLS_CA_FILE + " or " + PREFIX + TLS_TRUST_STORE + ", not both");
    }
    needs(reader, TLS_TRUST_STORE_PASSWORD, TLS_TRUST_STORE);
    if (reader.isSet(TLS_KEY_STORE) && reader.isSet(TLS_CERTIFICATE_FILE)) {
      reader.problem(
          TLS_CERTIFICATE_FILE,
          "the client certificate comes from "
              + PREFIX
              + TLS_KEY_STORE
              + " or from "
              + PREFIX
              + TLS_CERTIFICATE_FILE
              + " and "
              + PREFIX
              + TLS_PRIVATE_KEY_FILE
              + ", not both");
    }
    needs(reader, TLS_KEY_STORE_PASSWORD, TLS_KEY_STORE);
    if (reader.isSet(TLS_CERTIFICATE_FILE) && !reader.isSet(TLS_PRIVATE_KEY_FILE)) {
      reader.problem(
          TLS_PRIVATE_KEY_FILE,
          "missing; "
              + PREFIX
              + TLS_CERTIFICATE_FILE
              + " needs its private key, a PKCS#8 PEM file");
    }
    if (reader.isSet(TLS_PRIVATE_KEY_FILE) && !reader.isSet(TLS_CERTIFICATE_FILE)) {
      reader.problem(
          TLS_CERTIFICATE_FILE,
          "missing; " + PREFIX + TLS_PRIVATE_KEY_FILE + " needs its certificate chain, a PEM file");
    }
    needs(reader, TLS_PRIVATE_KEY_PASSWORD, TLS_PRIVATE_KEY_FILE);
    if (reader.problems().size() > before) {
      return null;
    }

    // Each part on its own, so that a file that cannot be used is reported with its key.
    if (caFile != null) {
      usable(reader, TLS_CA_FILE, RedisTlsOptions.builder().caFile(caFile));
    }
    if (trustStore != null) {
      usable(
          reader,
          TLS_TRUST_STORE,
          RedisTlsOptions.builder().trustStore(trustStore, trustStorePassword));
    }
    if (keyStore != null) {
      usable(reader, TLS_KEY_STORE, RedisTlsOptions.builder().keyStore(keyStore, keyStorePassword));
    }
    if (certificateFile != null) {
      usable(
          reader,
          TLS_CERTIFICATE_FILE,
          RedisTlsOptions.builder()
              .certificate(certificateFile, privateKeyFile, privateKeyPassword));
    }
    if (reader.problems().size() > before) {
      return null;
    }

    RedisTlsOptions.Builder tls = RedisTlsOptions.builder().verifyHostname(verifyHostname);
    if (caFile != null) {
      tls.caFile(caFile);
    }
    if (trustStore != null) {
      tls.trustStore(trustStore, trustStorePassword);
    }
    if (keyStore != null) {
      tls.keyStore(keyStore, keyStorePassword);
    }
    if (certificateFile != null) {
      tls.certificate(certificateFile, privateKeyFile, privateKeyPassword);
    }
    return tls.build();
  }

  /** A problem if {@code key} is set without {@code needed}. */
  private static void needs(SettingsReader reader, String key, String needed) {
    if (reader.secret(key).isPresent() && !reader.isSet(needed)) {
      reader.problem(key, "applies only with " + PREFIX + needed + ", which is not set");
    }
  }

  /** Builds the SSL context of one part, reading its files, as each connection will. */
  private static void usable(SettingsReader reader, String key, RedisTlsOptions.Builder part) {
    try {
      RedisSecurity.sslOptions(part.build(), RedisBackendOptions.DEFAULT_CONNECT_TIMEOUT);
    } catch (IllegalArgumentException | IllegalStateException e) {
      // The message names the file and the cause, never a password.
      reader.problem(key, e.getMessage());
    }
  }

  /** The readable regular file {@code key} names, or null (not set, or a problem recorded). */
  private static Path file(SettingsReader reader, String key, String expected) {
    Optional<String> value = reader.text(key);
    if (value.isEmpty()) {
      return null;
    }
    Path path;
    try {
      path = Path.of(value.get());
    } catch (InvalidPathException e) {
      reader.problem(key, "'" + value.get() + "' is not a file path; expected " + expected);
      return null;
    }
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      reader.problem(key, "'" + value.get() + "' is not a readable file; expected " + expected);
      return null;
    }
    return path;
  }

  private static Set<String> ordered(String... keys) {
    return Collections.unmodifiableSet(new LinkedHashSet<>(List.of(keys)));
  }

  private static Set<String> keys(String... first) {
    Set<String> keys = new LinkedHashSet<>(List.of(first));
    keys.add(TLS_ENABLED);
    keys.addAll(TLS_KEYS);
    return Collections.unmodifiableSet(keys);
  }
}
