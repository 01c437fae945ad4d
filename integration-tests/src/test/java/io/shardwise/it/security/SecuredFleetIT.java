package io.shardwise.it.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodePermissionException;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeTlsException;
import io.shardwise.client.Secret;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.FailureMode;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.memcached.MemcachedProtocol;
import io.shardwise.redis.RedisBackend;
import io.shardwise.redis.RedisBackendOptions;
import io.shardwise.redis.RedisTlsOptions;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import io.shardwise.testing.ServerTls;
import io.shardwise.testing.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Secured fleets through the routing client: Redis with a different password per node and Redis
 * over TLS, memcached with SASL. A node that refuses the client's credentials fails its own keys
 * with a {@link NodeAuthenticationException} naming it, is not ejected, and its keys are not moved
 * to other nodes, whatever the failure mode. And no secret reaches a log line, an exception, a
 * {@code toString()} or a metrics callback.
 */
@Timeout(120)
class SecuredFleetIT {

  private static final String RED_A = "Red-a-pass-1Qx";
  private static final String RED_B = "Red-b-pass-2Wy";
  private static final String TLS_PASS = "Tls-pass-3Ez";
  private static final String MEM_PASS = "Mem-pass-4Rv";
  private static final char[] STORE_PASS = "Store-pass-5Tb".toCharArray();
  private static final String WRONG = "Wrong-pass-6Yn";
  private static final int KEYS = 60;

  private static Path dir;
  private static Path caFile;
  private static Path trustStore;
  private static ServerFleet<RedisServer> redis;
  private static ServerFleet<RedisServer> redisTls;
  private static ServerFleet<MemcachedServer> memcached;

  @BeforeAll
  static void start() throws IOException {
    dir = Files.createTempDirectory("shardwise-secured-fleet-");
    TestCertificates.Authority ca = TestCertificates.authority("Shardwise IT CA");
    TestCertificates.Issued server = ca.issue("redis", "IP:127.0.0.1");
    caFile = ca.writeCertificate(dir.resolve("ca.pem"));
    trustStore = ca.writeTrustStore(dir.resolve("trust.p12"), STORE_PASS);
    ServerTls tls =
        ServerTls.of(
            server.writeCertificate(dir.resolve("server.pem")),
            server.writePrivateKey(dir.resolve("server.key")),
            caFile);
    redis = ServerFleet.redis(2).start();
    // Different passwords per node: set through the raw helper before anyone else connects.
    redis.server(0).command("CONFIG", "SET", "requirepass", RED_A);
    redis.server(1).command("CONFIG", "SET", "requirepass", RED_B);
    redisTls =
        ServerFleet.redisBuilder()
            .servers(2)
            .tls(tls)
            .extraArgs("--requirepass", TLS_PASS)
            .build()
            .start();
    memcached = ServerFleet.memcachedBuilder().servers(2).sasl("app", MEM_PASS).build().start();
  }

  @AfterAll
  static void stop() throws IOException {
    for (ServerFleet<?> fleet : new ServerFleet<?>[] {redis, redisTls, memcached}) {
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

  // ---- round trips ---------------------------------------------------------------------------

  @Test
  void redisWithAPasswordPerNodeRoundTripsEveryKey() {
    RedisBackend backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .password(Secret.of(RED_A))
                .nodeCredentials("red-b", null, Secret.of(RED_B))
                .build());
    try (AsyncCacheClient<String> client = client(backend, servers(redis, "red"))) {
      assertEveryKeyRoundTrips(client, "redis-pw");
    }
  }

  @Test
  void redisOverTlsRoundTripsEveryKey() {
    RedisBackend backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .password(Secret.of(TLS_PASS))
                .tls(
                    RedisTlsOptions.builder()
                        .trustStore(trustStore, Secret.of(new String(STORE_PASS)))
                        .build())
                .build());
    try (AsyncCacheClient<String> client = client(backend, servers(redisTls, "tls"))) {
      assertEveryKeyRoundTrips(client, "redis-tls");
    }
  }

  @Test
  void memcachedWithSaslRoundTripsEveryKey() {
    MemcachedBackend backend =
        MemcachedBackend.create(
            MemcachedOptions.builder()
                .protocol(MemcachedProtocol.BINARY)
                .sasl("app", Secret.of(MEM_PASS))
                .build());
    try (AsyncCacheClient<String> client = client(backend, servers(memcached, "mem"))) {
      assertEveryKeyRoundTrips(client, "memcached-sasl");
    }
  }

  // ---- a node that refuses the client ---------------------------------------------------------

  @Test
  void redisNodeWithWrongCredentialsFailsItsKeysAndIsNeitherEjectedNorBypassed() {
    RedisBackend backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .password(Secret.of(RED_A))
                .nodeCredentials("red-b", null, Secret.of(WRONG))
                .build());
    assertRefusingNodeKeepsItsKeys(backend, servers(redis, "red"), "red-b");
  }

  @Test
  void redisNodeWhoseUserMayNotWriteFailsItsWritesAndIsNeitherEjectedNorBypassed() {
    // An ACL user that may read but not write on one node: a permission error is a configuration
    // error of that node, not a node failure; its keys must not be written to the other node.
    try (ServerFleet<RedisServer> acl = ServerFleet.redis(2).start()) {
      String pass = "Acl-pass-7Uc";
      acl.server(0).command("ACL", "SETUSER", "app", "on", ">" + pass, "~*", "+@all");
      acl.server(1).command("ACL", "SETUSER", "app", "on", ">" + pass, "~*", "+@all", "-@write");
      RedisBackend backend =
          RedisBackend.create(
              RedisBackendOptions.builder().username("app").password(Secret.of(pass)).build());
      ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
      try (AsyncCacheClient<String> client =
          client(backend, servers(acl, "acl"), FailureMode.REDISTRIBUTE, events)) {
        int refused = 0;
        for (int i = 0; i < KEYS; i++) {
          String key = "w" + i;
          Node node = client.nodeFor(key);
          CompletableFuture<Void> set = client.set(key, "v" + i, Duration.ofMinutes(1));
          if (node.name().equals("acl-b")) {
            refused++;
            assertThat(failure(set))
                .isInstanceOf(NodePermissionException.class)
                .hasMessageStartingWith("acl-b (" + node.address() + ")")
                .hasMessageContaining("NOPERM");
            assertThat(client.get(key).orTimeout(5, TimeUnit.SECONDS).join()).isNull();
          } else {
            set.orTimeout(5, TimeUnit.SECONDS).join();
          }
        }
        assertThat(refused).isGreaterThan(FailoverOptions.DEFAULT_FAILURE_THRESHOLD);
        assertThat(events).isEmpty();
        assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
        for (int i = 0; i < KEYS; i++) {
          if (client.nodeFor("w" + i).name().equals("acl-b")) {
            assertThat(acl.server(0).get("w" + i)).as("w%d bypassed its node", i).isNull();
          }
        }
      }
    }
  }

  @Test
  void memcachedNodeWithWrongCredentialsFailsItsKeysAndIsNeitherEjectedNorBypassed() {
    // Both nodes refuse: the client must not fall back to some other node for any key.
    MemcachedBackend backend =
        MemcachedBackend.create(
            MemcachedOptions.builder()
                .protocol(MemcachedProtocol.BINARY)
                .sasl("app", Secret.of(WRONG))
                .build());
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    try (AsyncCacheClient<String> client =
        client(backend, servers(memcached, "mem"), FailureMode.REDISTRIBUTE, events)) {
      for (int i = 0; i < KEYS; i++) {
        Throwable t = failure(client.set("k" + i, "v", Duration.ZERO));
        assertThat(t)
            .isInstanceOf(NodeAuthenticationException.class)
            .hasMessageStartingWith(client.nodeFor("k" + i).name() + " (")
            .hasMessageContaining("SASL authentication failed");
      }
      assertThat(events).isEmpty();
      assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
    }
  }

  @Test
  void redisTlsNodeThatIsNotTrustedFailsItsKeysWithNodeTlsException() {
    Path otherCa =
        TestCertificates.authority("Untrusted CA").writeCertificate(dir.resolve("other.pem"));
    RedisBackend backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .password(Secret.of(TLS_PASS))
                .tls(RedisTlsOptions.builder().caFile(otherCa).build())
                .build());
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    try (AsyncCacheClient<String> client =
        client(backend, servers(redisTls, "tls"), FailureMode.REDISTRIBUTE, events)) {
      for (int i = 0; i < 10; i++) {
        assertThat(failure(client.get("k" + i)))
            .isInstanceOf(NodeTlsException.class)
            .hasMessageContaining("not trusted by the CA file " + otherCa);
      }
      assertThat(events).isEmpty();
    }
  }

  // ---- secrets -------------------------------------------------------------------------------

  @Test
  void noSecretReachesLogsExceptionsDescriptionsOrMetrics() throws Exception {
    List<String> secrets =
        List.of(RED_A, RED_B, TLS_PASS, MEM_PASS, new String(STORE_PASS), WRONG, "Ref-file-7Um");
    Path passwordFile = Files.writeString(dir.resolve("redis-b"), "Ref-file-7Um\n");
    List<String> texts = Collections.synchronizedList(new ArrayList<>());
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    PrintStream err = System.err;
    PrintStream out = System.out;
    System.setErr(new PrintStream(new Tee(err, logged), true, StandardCharsets.UTF_8));
    System.setOut(new PrintStream(new Tee(out, logged), true, StandardCharsets.UTF_8));
    try {
      List<Backend> backends =
          List.of(
              RedisBackend.create(
                  RedisBackendOptions.builder()
                      .username("default")
                      .password(Secret.of(WRONG))
                      .nodeCredentials("red-b", null, Secret.resolve("file:" + passwordFile))
                      .build()),
              MemcachedBackend.create(
                  MemcachedOptions.builder()
                      .protocol(MemcachedProtocol.BINARY)
                      .sasl("app", Secret.of(WRONG))
                      .build()),
              RedisBackend.create(
                  RedisBackendOptions.builder()
                      .password(Secret.of(TLS_PASS))
                      .tls(
                          RedisTlsOptions.builder()
                              .trustStore(trustStore, Secret.of(new String(STORE_PASS)))
                              .build())
                      .build()));
      List<String> serverLists =
          List.of(servers(redis, "red"), servers(memcached, "mem"), servers(redisTls, "tls"));
      for (int b = 0; b < backends.size(); b++) {
        Backend backend = backends.get(b);
        texts.add(backend.toString());
        try (AsyncCacheClient<String> client =
            ShardwiseClient.builder()
                .backend(backend)
                .servers(serverLists.get(b))
                .codec(Codecs.utf8())
                .metrics(
                    new io.shardwise.client.ClientMetrics() {
                      @Override
                      public void request(
                          Node node, String operation, long latencyNanos, Throwable failure) {
                        texts.add(node + " " + operation + " " + describe(failure));
                      }
                    })
                .build()) {
          texts.add(client.toString());
          for (int i = 0; i < 20; i++) {
            collect(texts, client.set("leak" + i, "v", Duration.ZERO));
            collect(texts, client.get("leak" + i));
          }
          collect(texts, client.getMulti(List.of("leak1", "leak2", "leak3")));
          client.pingAll().values().forEach(ping -> collect(texts, ping));
        }
      }
      try {
        RedisBackend.create(
            RedisBackendOptions.builder()
                .tls(RedisTlsOptions.builder().trustStore(trustStore, Secret.of(WRONG)).build())
                .build());
      } catch (IllegalArgumentException e) {
        texts.add(describe(e));
      }
    } finally {
      System.setErr(err);
      System.setOut(out);
    }
    String logs = logged.toString(StandardCharsets.UTF_8);
    // The capture works: the refusals were logged, naming their cause.
    assertThat(logs).contains("WRONGPASS").contains("SASL authentication failed");
    assertThat(texts).anyMatch(t -> t.contains("NodeAuthenticationException"));
    for (String secret : secrets) {
      assertThat(logs).doesNotContain(secret);
      assertThat(texts).noneMatch(t -> t.contains(secret));
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  private static void assertRefusingNodeKeepsItsKeys(
      Backend backend, String servers, String refusingNode) {
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    try (AsyncCacheClient<String> client =
        client(backend, servers, FailureMode.REDISTRIBUTE, events)) {
      int refused = 0;
      for (int i = 0; i < KEYS; i++) {
        String key = "k" + i;
        Node node = client.nodeFor(key);
        CompletableFuture<Void> set = client.set(key, "v" + i, Duration.ofMinutes(1));
        if (node.name().equals(refusingNode)) {
          refused++;
          assertThat(failure(set))
              .isInstanceOf(NodeAuthenticationException.class)
              .hasMessageStartingWith(refusingNode + " (" + node.address() + "): SET failed:")
              .hasMessageContaining("WRONGPASS");
          assertThat(failure(client.get(key))).isInstanceOf(NodeAuthenticationException.class);
        } else {
          set.orTimeout(5, TimeUnit.SECONDS).join();
          assertThat(client.get(key).orTimeout(5, TimeUnit.SECONDS).join()).isEqualTo("v" + i);
        }
      }
      assertThat(refused).isGreaterThan(FailoverOptions.DEFAULT_FAILURE_THRESHOLD);
      assertThat(events).isEmpty();
      assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
    }
  }

  private static void assertEveryKeyRoundTrips(AsyncCacheClient<String> client, String prefix) {
    Set<Node> used = new java.util.HashSet<>();
    for (int i = 0; i < KEYS; i++) {
      String key = prefix + ":" + i;
      client.set(key, "v" + i, Duration.ofMinutes(1)).orTimeout(5, TimeUnit.SECONDS).join();
      used.add(client.nodeFor(key));
    }
    for (int i = 0; i < KEYS; i++) {
      assertThat(client.get(prefix + ":" + i).orTimeout(5, TimeUnit.SECONDS).join())
          .isEqualTo("v" + i);
    }
    assertThat(used).hasSize(2);
  }

  private static AsyncCacheClient<String> client(Backend backend, String servers) {
    return client(backend, servers, FailureMode.REDISTRIBUTE, new ConcurrentLinkedQueue<>());
  }

  private static AsyncCacheClient<String> client(
      Backend backend,
      String servers,
      FailureMode mode,
      ConcurrentLinkedQueue<NodeEvent> events) {
    return ShardwiseClient.builder()
        .backend(backend)
        .servers(servers)
        .failover(FailoverOptions.builder().failureMode(mode).build())
        .listener(events::add)
        .codec(Codecs.utf8())
        .build();
  }

  /** {@code prefix-a=host:port,prefix-b=host:port}. */
  private static String servers(ServerFleet<? extends ServerHandle> fleet, String prefix) {
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < fleet.size(); i++) {
      ServerHandle s = fleet.server(i);
      entries.add(prefix + "-" + (char) ('a' + i) + "=" + s.host() + ":" + s.port());
    }
    return String.join(",", entries);
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

  private static void collect(List<String> texts, CompletableFuture<?> request) {
    try {
      Object result = request.get(5, TimeUnit.SECONDS);
      texts.add(String.valueOf(result));
    } catch (ExecutionException e) {
      texts.add(describe(e.getCause()));
      StringWriter trace = new StringWriter();
      e.getCause().printStackTrace(new PrintWriter(trace));
      texts.add(trace.toString());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Every throwable of a chain, with its causes and suppressed ones. */
  private static String describe(Throwable t) {
    if (t == null) {
      return "ok";
    }
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> todo = new ArrayList<>(List.of(t));
    List<String> parts = new ArrayList<>();
    while (!todo.isEmpty()) {
      Throwable c = todo.remove(0);
      if (c == null || !seen.add(c)) {
        continue;
      }
      parts.add(c.toString());
      todo.add(c.getCause());
      todo.addAll(List.of(c.getSuppressed()));
    }
    return parts.stream().collect(Collectors.joining(" <- "));
  }

  /** Writes to the original stream and to a capture. */
  private static final class Tee extends OutputStream {
    private final OutputStream first;
    private final OutputStream second;

    Tee(OutputStream first, OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public void write(int b) throws IOException {
      first.write(b);
      synchronized (second) {
        second.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      first.write(b, off, len);
      synchronized (second) {
        second.write(b, off, len);
      }
    }

    @Override
    public void flush() throws IOException {
      first.flush();
    }
  }
}
