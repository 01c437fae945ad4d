package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.shardwise.client.CachedValue;
import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.client.NodePermissionException;
import io.shardwise.client.NodeSecurityException;
import io.shardwise.client.NodeTlsException;
import io.shardwise.client.Secret;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.RecordingLogs;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerTls;
import io.shardwise.testing.TestCertificates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * Redis 7 with {@code requirepass}, with an ACL user limited to some commands and keys, and with
 * TLS only (certificates made in the test): the right settings round-trip, each wrong one fails
 * every request with one clear {@link NodeSecurityException} that names the node and the cause,
 * is no node failure, is logged once and is retried slowly.
 */
class RedisSecurityIT {

  private static final String ADMIN_PASSWORD = "Adm1n-pass-7Qz";
  private static final String APP_PASSWORD = "App-pass-9Kw";
  private static final String MTLS_PASSWORD = "Mtls-pass-4Rt";
  private static final String KEEPER_PASSWORD = "Keeper-pass-6Hs";
  private static final char[] STORE_PASSWORD = "Store-pass-2Lm".toCharArray();
  private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(500);

  private static Path dir;
  private static Path caFile;
  private static Path otherCaFile;
  private static Path trustStore;
  private static Path clientCertificate;
  private static Path clientKey;
  private static Path clientKeyStore;

  /**
   * requirepass for the default user; user app limited to GET/SET/DEL/MGET/PING on app:*; user
   * keeper with every key but none of the commands the client's failover runs on a readmitted node
   * to delete keys (DEL, UNLINK, FLUSHDB), nor INCRBY.
   */
  private static ServerFleet<RedisServer> auth;
  /** No password, no TLS. */
  private static ServerFleet<RedisServer> plain;
  /** TLS only, certificate for IP 127.0.0.1. */
  private static ServerFleet<RedisServer> tls;
  /** TLS only, certificate for DNS cache.example only. */
  private static ServerFleet<RedisServer> wrongName;
  /** TLS only, client certificates required, and a password. */
  private static ServerFleet<RedisServer> mutualTls;

  private final List<RedisBackend> backends = new ArrayList<>();

  @BeforeAll
  static void startServers() throws IOException {
    dir = Files.createTempDirectory("shardwise-redis-security-");
    TestCertificates.Authority ca = TestCertificates.authority("Shardwise Test CA");
    TestCertificates.Authority other = TestCertificates.authority("Some Other CA");
    caFile = ca.writeCertificate(dir.resolve("ca.pem"));
    otherCaFile = other.writeCertificate(dir.resolve("other-ca.pem"));
    trustStore = ca.writeTrustStore(dir.resolve("trust.p12"), STORE_PASSWORD);
    TestCertificates.Issued server = ca.issue("redis", "IP:127.0.0.1", "DNS:localhost");
    TestCertificates.Issued named = ca.issue("redis-named", "DNS:cache.example");
    TestCertificates.Issued client = ca.issue("shardwise-client");
    clientCertificate = client.writeCertificate(dir.resolve("client.pem"));
    clientKey = client.writePrivateKey(dir.resolve("client.key"));
    clientKeyStore = client.writeKeyStore(dir.resolve("client.p12"), STORE_PASSWORD);
    ServerTls serverTls =
        ServerTls.of(
            server.writeCertificate(dir.resolve("server.pem")),
            server.writePrivateKey(dir.resolve("server.key")),
            caFile);
    ServerTls namedTls =
        ServerTls.of(
            named.writeCertificate(dir.resolve("named.pem")),
            named.writePrivateKey(dir.resolve("named.key")),
            caFile);

    auth =
        ServerFleet.redisBuilder()
            .extraArgs(
                "--requirepass", ADMIN_PASSWORD,
                "--user", "app", "on", ">" + APP_PASSWORD, "~app:*",
                "+get", "+set", "+del", "+mget", "+ping",
                "--user", "keeper", "on", ">" + KEEPER_PASSWORD, "~*",
                "+get", "+set", "+mget", "+ping", "+info", "+eval", "+evalsha")
            .build()
            .start();
    plain = ServerFleet.redis(1).start();
    tls = ServerFleet.redisBuilder().tls(serverTls).build().start();
    wrongName = ServerFleet.redisBuilder().tls(namedTls).build().start();
    mutualTls =
        ServerFleet.redisBuilder()
            .tls(serverTls.requiringClientCertificates())
            .extraArgs("--requirepass", MTLS_PASSWORD)
            .build()
            .start();
  }

  @AfterAll
  static void stopServers() throws IOException {
    for (ServerFleet<?> fleet : new ServerFleet<?>[] {auth, plain, tls, wrongName, mutualTls}) {
      if (fleet != null) {
        fleet.close();
      }
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @AfterEach
  void closeBackends() {
    backends.forEach(RedisBackend::close);
    backends.clear();
    RecordingLogs.captureDebug(false);
  }

  // ---- helpers -------------------------------------------------------------------------------

  private static RedisBackendOptions.Builder options() {
    return RedisBackendOptions.builder()
        .connectTimeout(CONNECT_TIMEOUT)
        .reconnectDelay(Duration.ofMillis(100), Duration.ofSeconds(10));
  }

  /** A connection to {@code server} whose first connection attempt has finished. */
  private RedisNodeConnection connect(RedisBackendOptions.Builder options, RedisServer server) {
    RedisBackend backend = RedisBackend.create(options.build());
    backends.add(backend);
    NodeConnection connection = backend.connect(Node.of(server.host(), server.port()));
    connection.ready().orTimeout(10, TimeUnit.SECONDS).join();
    return (RedisNodeConnection) connection;
  }

  private static CachedValue value(String text) {
    return CachedValue.of(text.getBytes(StandardCharsets.UTF_8), 0);
  }

  private static String text(CachedValue value) {
    return new String(value.bytes(), StandardCharsets.UTF_8);
  }

  private static <T> T await(CompletableFuture<T> future) {
    return future.orTimeout(5, TimeUnit.SECONDS).join();
  }

  private static Throwable failure(CompletableFuture<?> future) {
    try {
      future.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("expected the request to fail, got " + e, e);
    }
    throw new AssertionError("expected the request to fail, but it succeeded");
  }

  /** Checks that a round trip works on {@code connection}. */
  private static void roundTrip(NodeConnection connection, String key) {
    await(connection.set(key, value("v-" + key), Duration.ofMinutes(1)));
    assertThat(text(await(connection.get(key)))).isEqualTo("v-" + key);
  }

  private static String address(RedisServer server) {
    return server.host() + ":" + server.port();
  }

  // ---- passwords and ACL users ---------------------------------------------------------------

  @Test
  void passwordOfTheDefaultUserRoundTrips() {
    NodeConnection c = connect(options().password(Secret.of(ADMIN_PASSWORD)), auth.server(0));
    roundTrip(c, "any:key");
    assertThat(await(c.ping())).isPositive();
  }

  @Test
  void aclUserRoundTripsOnItsKeysAndGetsNodePermissionExceptionElsewhere() {
    RedisBackend backend =
        RedisBackend.create(options().username("app").password(Secret.of(APP_PASSWORD)).build());
    backends.add(backend);
    RedisServer server = auth.server(0);
    NodeConnection c = backend.connect(Node.of(server.host(), server.port()));
    c.ready().join();
    roundTrip(c, "app:1");

    Throwable otherKey = failure(c.get("other:1"));
    assertThat(otherKey)
        .isInstanceOf(NodePermissionException.class)
        .hasMessageContaining(address(server))
        .hasMessageContaining("GET failed: permission denied for user 'app'")
        .hasMessageContaining("NOPERM");
    assertThat(backend.isNodeFailure(otherKey)).isFalse();

    // A command the user may not run at all.
    Throwable flush = failure(c.flushAll());
    assertThat(flush)
        .isInstanceOf(NodePermissionException.class)
        .hasMessageContaining("FLUSHDB failed: permission denied for user 'app'");
    assertThat(backend.isNodeFailure(flush)).isFalse();

    // The node stays in service.
    roundTrip(c, "app:2");
  }

  @Test
  void aclUserWithoutDelOrFlushdbGetsNodePermissionExceptionOnARestartedNodeToo() {
    RedisServer server = auth.server(0);
    RedisBackend backend =
        RedisBackend.create(
            options().username("keeper").password(Secret.of(KEEPER_PASSWORD)).build());
    backends.add(backend);
    RedisNodeConnection c =
        (RedisNodeConnection) backend.connect(Node.of(server.host(), server.port()));
    c.ready().orTimeout(10, TimeUnit.SECONDS).join();
    String runId = await(c.runId());
    deleteAndFlushAreRefused(backend, c, server);

    // Killed and restarted (with the same ACL): what a readmitted node is, once it answers PING.
    server.kill();
    server.restart();
    Await.until(() -> c.ping().handle((rtt, t) -> t == null).join(), Duration.ofSeconds(5));
    assertThat(await(c.runId())).isNotEqualTo(runId);
    deleteAndFlushAreRefused(backend, c, server);
  }

  /** DEL (one key or a batch) and FLUSHDB fail with a NodePermissionException, nothing else. */
  private static void deleteAndFlushAreRefused(
      RedisBackend backend, NodeConnection c, RedisServer server) {
    roundTrip(c, "keeper:1");
    String node = address(server) + ": ";
    Throwable batch = failure(c.deleteMulti(List.of("keeper:1", "keeper:2")));
    assertThat(batch)
        .isInstanceOf(NodePermissionException.class)
        .hasMessageStartingWith(node + "DEL failed: permission denied for user 'keeper'")
        .hasMessageContaining("NOPERM")
        .hasMessageContaining("'del' command");
    assertThat(backend.isNodeFailure(batch)).isFalse();
    assertThat(backend.isNodeFailure(new CompletionException(batch))).isFalse();
    Throwable one = failure(c.delete("keeper:1"));
    assertThat(one)
        .isInstanceOf(NodePermissionException.class)
        .hasMessageStartingWith(node + "DEL failed: permission denied for user 'keeper'");
    assertThat(backend.isNodeFailure(one)).isFalse();
    Throwable flush = failure(c.flushAll());
    assertThat(flush)
        .isInstanceOf(NodePermissionException.class)
        .hasMessageStartingWith(node + "FLUSHDB failed: permission denied for user 'keeper'")
        .hasMessageContaining("'flushdb' command");
    assertThat(backend.isNodeFailure(flush)).isFalse();
    // Nothing was deleted, and the node stays in service.
    assertThat(text(await(c.get("keeper:1")))).isEqualTo("v-keeper:1");
    assertThat(await(c.ping())).isPositive();
  }

  @Test
  void aclRefusalInsideTheIncrScriptIsANodePermissionException() {
    RedisServer server = auth.server(0);
    RedisBackend backend =
        RedisBackend.create(
            options().username("keeper").password(Secret.of(KEEPER_PASSWORD)).build());
    backends.add(backend);
    NodeConnection c = backend.connect(Node.of(server.host(), server.port()));
    c.ready().orTimeout(10, TimeUnit.SECONDS).join();
    String counter = "keeper:counter:" + System.nanoTime();
    // Created by SET NX, which keeper may run; adding to it needs INCRBY, which it may not.
    assertThat(await(c.incr(counter, 1, 5, Duration.ZERO))).isEqualTo(5L);
    Throwable t = failure(c.incr(counter, 1, 5, Duration.ZERO));
    assertThat(t)
        .isInstanceOf(NodePermissionException.class)
        .hasMessageStartingWith(
            address(server) + ": INCR failed: permission denied for user 'keeper'")
        .hasMessageContaining("can't run this command");
    assertThat(backend.isNodeFailure(t)).isFalse();
  }

  @Test
  void aclUserThatMayNotSelectItsDatabaseFailsToConnectWithNodePermissionException() {
    RedisNodeConnection c =
        connect(
            options().database(1).username("app").password(Secret.of(APP_PASSWORD)),
            auth.server(0));
    assertThat(failure(c.get("app:1")))
        .isInstanceOf(NodePermissionException.class)
        .hasMessageContaining("may not run a command every connection needs")
        .hasMessageContaining("'select'");
  }

  @Test
  void wrongPasswordFailsEveryRequestOnceLoggedWithoutEjectionOrHotLoop() {
    RecordingLogs.clear();
    RedisServer server = auth.server(0);
    RedisNodeConnection c = connect(options().password(Secret.of("Wrong-pass-1")), server);
    RedisBackend backend = backends.get(0);

    for (int i = 0; i < 30; i++) {
      long start = System.nanoTime();
      Throwable t = failure(c.get("k" + i));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(100));
      assertThat(t)
          .isInstanceOf(NodeAuthenticationException.class)
          .hasMessageContaining(address(server))
          .hasMessageContaining("GET failed: authentication failed: the server refused the default"
              + " user with the configured password")
          .hasMessageContaining("WRONGPASS");
      assertThat(backend.isNodeFailure(t)).isFalse();
      sleep(30);
    }
    // One connection attempt in about a second: after a security failure the next one waits for
    // the longest reconnect delay (5 to 10 s here). (Two when Lettuce lost the outcome of the
    // first under load, which is made again at once.)
    assertThat(c.attempts()).isBetween(1, 2);
    List<RecordingLogs.Event> errors = RecordingLogs.events("io.shardwise", Level.WARN);
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).level()).isEqualTo(Level.ERROR);
    assertThat(errors.get(0).text())
        .contains("redis " + address(server))
        .contains("authentication failed")
        .contains("NodeAuthenticationException")
        .contains("not ejected");
    assertThat(RecordingLogs.events("io.lettuce", Level.WARN)).isEmpty();
  }

  @Test
  void unknownUserIsAnAuthenticationError() {
    NodeConnection c =
        connect(options().username("nobody").password(Secret.of(APP_PASSWORD)), auth.server(0));
    assertThat(failure(c.get("k")))
        .isInstanceOf(NodeAuthenticationException.class)
        .hasMessageContaining("the server refused user 'nobody'")
        .hasMessageContaining("WRONGPASS");
  }

  @Test
  void noPasswordForAServerThatRequiresOneIsAnAuthenticationError() {
    NodeConnection c = connect(options(), auth.server(0));
    assertThat(failure(c.set("k", value("v"), Duration.ZERO)))
        .isInstanceOf(NodeAuthenticationException.class)
        .hasMessageContaining("the server requires a password and none is configured")
        .hasMessageContaining("NOAUTH");
  }

  @Test
  void passwordForAServerWithoutOneIsAnAuthenticationError() {
    NodeConnection c = connect(options().password(Secret.of("Unneeded-pass-3")), plain.server(0));
    assertThat(failure(c.get("k")))
        .isInstanceOf(NodeAuthenticationException.class)
        .hasMessageContaining("a password is configured, but the server has none");
  }

  @Test
  void passwordFromAFileReferenceRoundTrips() throws IOException {
    Path file = Files.writeString(dir.resolve("redis-password"), ADMIN_PASSWORD + "\n");
    NodeConnection c =
        connect(options().password(Secret.resolve("file:" + file)), auth.server(0));
    roundTrip(c, "from:file");
  }

  @Test
  void perNodeCredentialsOverrideTheFleetsByNameOrAddress() {
    RedisServer admin = auth.server(0);
    RedisBackend backend =
        RedisBackend.create(
            options()
                .password(Secret.of("Fleet-pass-wrong"))
                .nodeCredentials("app-node", "app", Secret.of(APP_PASSWORD))
                .nodeCredentials(address(admin), null, Secret.of(ADMIN_PASSWORD))
                .build());
    backends.add(backend);
    NodeConnection asApp = backend.connect(Node.named("app-node", admin.host(), admin.port(), 1));
    NodeConnection asAdmin = backend.connect(Node.of(admin.host(), admin.port()));
    asApp.ready().join();
    asAdmin.ready().join();
    roundTrip(asApp, "app:node");
    assertThat(failure(asApp.get("admin:only"))).isInstanceOf(NodePermissionException.class);
    roundTrip(asAdmin, "admin:only");
  }

  @Test
  void reconnectionRefusedAfterAPasswordChangeIsAnAuthenticationErrorNotANodeFailure() {
    RedisServer server = plain.server(0);
    RedisURI adminUri =
        RedisURI.builder()
            .withHost(server.host())
            .withPort(server.port())
            .withPassword("First-pass-5".toCharArray())
            .build();
    RedisClient admin = RedisClient.create();
    try {
      server.command("CONFIG", "SET", "requirepass", "First-pass-5");
      RedisNodeConnection c = connect(options().password(Secret.of("First-pass-5")), server);
      roundTrip(c, "before");
      try (StatefulRedisConnection<String, String> raw = admin.connect(adminUri)) {
        raw.sync().configSet("requirepass", "Second-pass-6");
        raw.sync().clientKill(io.lettuce.core.KillArgs.Builder.typeNormal());
      } catch (RuntimeException e) {
        // CLIENT KILL TYPE normal also drops the admin connection itself.
      }
      Await.until(
          () -> failure(c.get("after")) instanceof NodeAuthenticationException,
          Duration.ofSeconds(5));
      assertThat(failure(c.get("after")))
          .hasMessageContaining("WRONGPASS")
          .hasMessageContaining(address(server));
    } finally {
      admin.shutdown();
      server.kill();
      server.restart(); // back to no password
    }
  }

  @Test
  void credentialsRecoverOnceTheServerAcceptsThem() {
    RedisServer server = plain.server(0);
    try {
      RedisNodeConnection c =
          connect(
              RedisBackendOptions.builder()
                  .connectTimeout(CONNECT_TIMEOUT)
                  .reconnectDelay(Duration.ofMillis(50), Duration.ofMillis(400))
                  .password(Secret.of("Late-pass-8")),
              server);
      assertThat(failure(c.get("k"))).isInstanceOf(NodeAuthenticationException.class);
      server.command("CONFIG", "SET", "requirepass", "Late-pass-8");
      Await.connected(c);
      roundTrip(c, "recovered");
    } finally {
      server.kill();
      server.restart();
    }
  }

  @Test
  void userNameWithoutAnyPasswordFailsAtBuild() {
    assertThatThrownBy(() -> RedisBackendOptions.builder().username("app").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("username 'app' is set but no password; AUTH needs both");
  }

  // ---- TLS -----------------------------------------------------------------------------------

  @Test
  void tlsWithACaFileRoundTrips() {
    NodeConnection c =
        connect(options().tls(RedisTlsOptions.builder().caFile(caFile).build()), tls.server(0));
    roundTrip(c, "tls:ca");
  }

  @Test
  void tlsWithATrustStoreRoundTrips() {
    NodeConnection c =
        connect(
            options()
                .tls(
                    RedisTlsOptions.builder()
                        .trustStore(trustStore, Secret.of(new String(STORE_PASSWORD)))
                        .build()),
            tls.server(0));
    roundTrip(c, "tls:store");
  }

  @Test
  void untrustedCertificateIsATlsError() {
    RedisServer server = tls.server(0);
    RedisBackend backend =
        RedisBackend.create(
            options().tls(RedisTlsOptions.builder().caFile(otherCaFile).build()).build());
    backends.add(backend);
    NodeConnection c = backend.connect(Node.of(server.host(), server.port()));
    c.ready().join();
    Throwable t = failure(c.get("k"));
    assertThat(t)
        .isInstanceOf(NodeTlsException.class)
        .hasMessageContaining(address(server))
        .hasMessageContaining(
            "the server's certificate is not trusted by the CA file " + otherCaFile)
        .hasMessageContaining("PKIX");
    assertThat(backend.isNodeFailure(t)).isFalse();
  }

  @Test
  void jdkDefaultTrustDoesNotTrustATestCa() {
    NodeConnection c = connect(options().tls(true), tls.server(0));
    assertThat(failure(c.get("k")))
        .isInstanceOf(NodeTlsException.class)
        .hasMessageContaining("not trusted by the JDK's default trust store");
  }

  @Test
  void certificateForAnotherNameIsATlsErrorUnlessHostnameVerificationIsOff() {
    RedisServer server = wrongName.server(0);
    NodeConnection strict =
        connect(options().tls(RedisTlsOptions.builder().caFile(caFile).build()), server);
    assertThat(failure(strict.get("k")))
        .isInstanceOf(NodeTlsException.class)
        .hasMessageContaining("the server's certificate does not name 127.0.0.1")
        .hasMessageContaining("hostname verification");

    NodeConnection chainOnly =
        connect(
            options().tls(RedisTlsOptions.builder().caFile(caFile).verifyHostname(false).build()),
            server);
    roundTrip(chainOnly, "tls:no-hostname");
  }

  @Test
  void clientCertificateRequiredByTheServer() {
    RedisServer server = mutualTls.server(0);
    NodeConnection none =
        connect(
            options()
                .password(Secret.of(MTLS_PASSWORD))
                .tls(RedisTlsOptions.builder().caFile(caFile).build()),
            server);
    assertThat(failure(none.get("k")))
        .isInstanceOf(NodeTlsException.class)
        .hasMessageContaining("the server requires a client certificate and none is configured");

    NodeConnection pem =
        connect(
            options()
                .password(Secret.of(MTLS_PASSWORD))
                .tls(
                    RedisTlsOptions.builder()
                        .caFile(caFile)
                        .certificate(clientCertificate, clientKey)
                        .build()),
            server);
    roundTrip(pem, "mtls:pem");

    NodeConnection store =
        connect(
            options()
                .password(Secret.of(MTLS_PASSWORD))
                .tls(
                    RedisTlsOptions.builder()
                        .trustStore(trustStore, Secret.of(new String(STORE_PASSWORD)))
                        .keyStore(clientKeyStore, Secret.of(new String(STORE_PASSWORD)))
                        .build()),
            server);
    roundTrip(store, "mtls:store");

    NodeConnection wrongPassword =
        connect(
            options()
                .password(Secret.of("Wrong-pass-2"))
                .tls(
                    RedisTlsOptions.builder()
                        .caFile(caFile)
                        .certificate(clientCertificate, clientKey)
                        .build()),
            server);
    assertThat(failure(wrongPassword.get("k")))
        .isInstanceOf(NodeAuthenticationException.class)
        .hasMessageContaining("WRONGPASS");
  }

  @Test
  void tlsToAPlaintextPortIsATlsError() {
    RedisServer server = plain.server(0);
    RedisBackend backend =
        RedisBackend.create(
            options().tls(RedisTlsOptions.builder().caFile(caFile).build()).build());
    backends.add(backend);
    NodeConnection c = backend.connect(Node.of(server.host(), server.port()));
    c.ready().orTimeout(10, TimeUnit.SECONDS).join();
    Throwable t = failure(c.get("k"));
    assertThat(t)
        .isInstanceOf(NodeTlsException.class)
        .hasMessageContaining("TLS is on, but the server answers plaintext")
        .hasMessageContaining(address(server) + " is not a TLS port");
    assertThat(backend.isNodeFailure(t)).isFalse();
  }

  @Test
  void plaintextToATlsPortIsATlsError() {
    RedisServer server = tls.server(0);
    NodeConnection c = connect(options(), server);
    assertThat(failure(c.get("k")))
        .isInstanceOf(NodeTlsException.class)
        .hasMessageContaining("TLS is off, but " + address(server) + " is a TLS port");
  }

  @Test
  void unusableTlsFilesFailWhenTheBackendIsCreated() throws IOException {
    Path missing = dir.resolve("missing-ca.pem");
    assertThatThrownBy(
            () ->
                RedisBackend.create(
                    options().tls(RedisTlsOptions.builder().caFile(missing).build()).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("TLS CA file " + missing + " is not a readable file");

    String wrong = "Wrong-store-pass-0";
    assertThatThrownBy(
            () ->
                RedisBackend.create(
                    options()
                        .tls(
                            RedisTlsOptions.builder()
                                .trustStore(trustStore, Secret.of(wrong))
                                .build())
                        .build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("TLS trust store " + trustStore + " cannot be read")
        .satisfies(e -> assertThat(RecordingLogs.describe(e)).doesNotContain(wrong));

    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
    assertThatThrownBy(
            () ->
                RedisBackend.create(
                    options().tls(RedisTlsOptions.builder().caFile(garbage).build()).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("TLS settings are not usable (the CA file " + garbage);
  }

  // ---- secrets -------------------------------------------------------------------------------

  @Test
  void noSecretAppearsInLogsMessagesOrDescriptions() throws IOException {
    RecordingLogs.clear();
    RecordingLogs.captureDebug(true);
    String wrongDefault = "Leak-wrong-default-1";
    String wrongUser = "Leak-wrong-user-2";
    String unneeded = "Leak-unneeded-3";
    String wrongStore = "Leak-store-4";
    Path envLikeFile = Files.writeString(dir.resolve("leak-pass"), "Leak-file-5\n");
    List<String> secrets =
        List.of(
            wrongDefault, wrongUser, unneeded, wrongStore, "Leak-file-5",
            ADMIN_PASSWORD, APP_PASSWORD, MTLS_PASSWORD, new String(STORE_PASSWORD));
    List<String> texts = new ArrayList<>();

    List<RedisBackendOptions> scenarios =
        List.of(
            options().password(Secret.of(wrongDefault)).build(),
            options().username("app").password(Secret.of(wrongUser)).build(),
            options().username("app").password(Secret.of(APP_PASSWORD)).build(),
            options().password(Secret.of(ADMIN_PASSWORD)).build(),
            options().password(Secret.resolve("file:" + envLikeFile)).build());
    for (RedisBackendOptions scenario : scenarios) {
      RedisBackend backend = RedisBackend.create(scenario);
      backends.add(backend);
      NodeConnection c = backend.connect(Node.of(auth.server(0).host(), auth.server(0).port()));
      c.ready().join();
      collect(texts, c.set("app:leak", value("v"), Duration.ZERO));
      collect(texts, c.get("other:leak"));
      collect(texts, c.flushAll());
      texts.add(scenario.toString());
      texts.add(backend.toString());
      texts.add(c.toString());
    }
    RedisBackend unneededBackend =
        RedisBackend.create(options().password(Secret.of(unneeded)).build());
    backends.add(unneededBackend);
    NodeConnection toPlain =
        unneededBackend.connect(Node.of(plain.server(0).host(), plain.server(0).port()));
    toPlain.ready().join();
    collect(texts, toPlain.get("k"));

    RedisBackendOptions mtls =
        options()
            .password(Secret.of(MTLS_PASSWORD))
            .tls(
                RedisTlsOptions.builder()
                    .trustStore(trustStore, Secret.of(new String(STORE_PASSWORD)))
                    .keyStore(clientKeyStore, Secret.of(new String(STORE_PASSWORD)))
                    .build())
            .build();
    RedisBackend mtlsBackend = RedisBackend.create(mtls);
    backends.add(mtlsBackend);
    NodeConnection secure =
        mtlsBackend.connect(Node.of(mutualTls.server(0).host(), mutualTls.server(0).port()));
    secure.ready().join();
    roundTrip(secure, "leak:tls");
    texts.add(mtls.toString());
    texts.add(mtls.tls().orElseThrow().toString());
    try {
      RedisBackend.create(
          options()
              .tls(RedisTlsOptions.builder().trustStore(trustStore, Secret.of(wrongStore)).build())
              .build());
    } catch (IllegalArgumentException e) {
      texts.add(RecordingLogs.describe(e));
    }
    backends.forEach(RedisBackend::close);
    backends.clear();

    List<RecordingLogs.Event> logged = RecordingLogs.all();
    assertThat(logged)
        .anyMatch(e -> e.level() == Level.DEBUG && e.logger().startsWith("io.lettuce"));
    assertThat(logged).anyMatch(e -> e.level() == Level.ERROR && e.text().contains("WRONGPASS"));
    assertThat(texts).anyMatch(t -> t.contains("WRONGPASS")).anyMatch(t -> t.contains("NOPERM"));
    for (String secret : secrets) {
      assertThat(texts).noneMatch(t -> t.contains(secret));
      assertThat(logged).noneMatch(e -> e.text().contains(secret));
    }
  }

  private static void collect(List<String> texts, CompletableFuture<?> request) {
    try {
      request.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      texts.add(RecordingLogs.describe(e.getCause()));
      java.io.StringWriter trace = new java.io.StringWriter();
      e.getCause().printStackTrace(new java.io.PrintWriter(trace));
      texts.add(trace.toString());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
