package io.shardwise.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.NodeState;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.FailureMode;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spring.cache.CacheSettings;
import io.shardwise.spring.cache.ShardwiseCache;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.cache.Cache;

/**
 * A cache's generation survives any one server: killing (SIGKILL, then a restart, empty) or hanging
 * (SIGSTOP past the client's timeout, then SIGCONT) any of three real servers, each holding one of
 * its replicas (or, of four, the one holding none) costs the cache only the entries on that server,
 * during the outage and after its readmission; a clear during the outage, and one after, empties that cache and no other; with
 * the fail-fast failure mode only that server's share of calls fails. Every hit is checked against
 * the value last written, so an old entry coming back fails the test. The figures go to {@code
 * target/cache-outage-<backend>.md}.
 */
abstract class CacheOutageContract {

  static final int ENTRIES = 600;
  static final int OTHER_ENTRIES = 60;
  static final Duration TIMEOUT = Duration.ofSeconds(1);
  static final Duration REFRESH = Duration.ofMillis(200);
  static final Duration RECOVERY = Duration.ofSeconds(30);

  private static final Map<String, List<String>> REPORT = new ConcurrentHashMap<>();

  private final List<AsyncCacheClient<Object>> clients = new ArrayList<>();
  private int round;

  /** Three servers: each holds one replica of a cache's generation. */
  abstract ServerFleet<? extends ServerHandle> fleet();

  /** Four servers: one holds no replica of a given cache's generation. */
  abstract ServerFleet<? extends ServerHandle> fourServers();

  abstract Backend newBackend();

  abstract String backendName();

  /** How a server is taken out and brought back. */
  enum Outage {
    KILL {
      @Override
      void begin(ServerHandle server) {
        server.kill();
      }

      @Override
      void end(ServerHandle server) {
        server.restart();
      }
    },
    HANG {
      @Override
      void begin(ServerHandle server) {
        server.pause();
      }

      @Override
      void end(ServerHandle server) {
        server.resume();
      }
    };

    abstract void begin(ServerHandle server);

    abstract void end(ServerHandle server);
  }

  @BeforeEach
  void freshServers() {
    for (ServerFleet<? extends ServerHandle> f : List.of(fleet(), fourServers())) {
      f.restoreAll();
      f.flushAll();
    }
  }

  @AfterEach
  void closeClients() {
    clients.forEach(AsyncCacheClient::close);
    clients.clear();
    fleet().restoreAll();
    fourServers().restoreAll();
  }

  @ParameterizedTest(name = "server {0}")
  @ValueSource(ints = {0, 1, 2})
  void killingAServerCostsOnlyItsShareOfTheCache(int server) {
    outage(server, Outage.KILL, FailureMode.REDISTRIBUTE);
  }

  @ParameterizedTest(name = "server {0}")
  @ValueSource(ints = {0, 1, 2})
  void hangingAServerCostsOnlyItsShareOfTheCache(int server) {
    outage(server, Outage.HANG, FailureMode.REDISTRIBUTE);
  }

  @ParameterizedTest(name = "server {0}")
  @ValueSource(ints = {0, 1, 2})
  void withFailFastOnlyTheKilledServersShareOfCallsFails(int server) {
    outage(server, Outage.KILL, FailureMode.FAIL_FAST);
  }

  @ParameterizedTest(name = "server {0}")
  @ValueSource(ints = {0, 1, 2})
  void withFailFastOnlyTheHungServersShareOfCallsFails(int server) {
    outage(server, Outage.HANG, FailureMode.FAIL_FAST);
  }

  @ParameterizedTest(name = "{0}, {1}")
  @CsvSource({"KILL, REDISTRIBUTE", "HANG, FAIL_FAST"})
  void aServerHoldingNoReplicaCostsOnlyItsShareToo(Outage outage, FailureMode mode) {
    int index = -1;
    AsyncCacheClient<Object> client = client(fourServers(), mode);
    Set<Node> holders = holders(client, cache(client, "books"));
    for (int i = 0; i < fourServers().size(); i++) {
      if (!holders.contains(nodeOf(client, fourServers().server(i)))) {
        index = i;
      }
    }
    assertThat(holders).hasSize(3);
    outage(fourServers(), index, outage, mode);
  }

  private void outage(int index, Outage outage, FailureMode mode) {
    outage(fleet(), index, outage, mode);
  }

  private void outage(
      ServerFleet<? extends ServerHandle> fleet, int index, Outage outage, FailureMode mode) {
    AsyncCacheClient<Object> client = client(fleet, mode);
    ServerHandle server = fleet.server(index);
    Node node = nodeOf(client, server);
    Entries books = new Entries(client, cache(client, "books"), "isbn-", ENTRIES);
    Entries authors = new Entries(client, cache(client, "authors"), "author-", OTHER_ENTRIES);
    Set<Node> holders = holders(client, books.cache);
    assertThat(holders).as("replicas on distinct servers").hasSize(3);
    boolean holds = holders.contains(node);
    assertThat(holds).as("server %d holds a replica", index).isEqualTo(fleet.size() == 3);
    boolean failFast = mode == FailureMode.FAIL_FAST;
    String row =
        "| " + backendName() + " | " + fleet.size() + " | " + outage.name().toLowerCase(Locale.ROOT)
            + " | " + mode.id() + " | " + index + (holds ? " (replica)" : " (none)");

    // 1. An outage, then a readmission, each cost the server's share and no more.
    books.fill(nextRound());
    authors.fill(nextRound());
    int share = books.on(node).size();
    outage.begin(server);
    awaitEjected(client, node);
    Tally during = books.read(node, "during the outage");
    assertThat(failFast ? during.errors : during.misses).isEqualTo(share);
    Tally puts = books.fill(nextRound(), node);
    assertThat(puts.errors).as("failed puts").isEqualTo(failFast ? share : 0);
    outage.end(server);
    awaitReadmitted(client);
    Tally after = books.read(node, "after readmission");
    assertThat(after.errors).isZero();

    // 2. A clear during an outage empties the cache, and only it, and stays done after.
    books.fill(nextRound());
    authors.fill(nextRound());
    outage.begin(server);
    awaitEjected(client, node);
    books.cache.clear();
    books.cleared();
    Tally clearedDuring = books.read(node, "after a clear during the outage");
    new Entries(client, cache(client, "books"), "isbn-", ENTRIES)
        .expecting(books)
        .read(node, "in another process, after a clear during the outage");
    authors.read(node, "other cache, after a clear during the outage");
    outage.end(server);
    awaitReadmitted(client);
    Tally clearedAfter =
        new Entries(client, cache(client, "books"), "isbn-", ENTRIES)
            .expecting(books)
            .read(null, "in another process, readmitted after a clear during the outage");
    books.read(null, "readmitted after a clear during the outage");
    awaitReplicasAgree(client, books.cache);

    // 3. A clear after the readmission too.
    books.fill(nextRound());
    authors.fill(nextRound());
    assertThat(books.read(null, "refilled").hits).isEqualTo(ENTRIES);
    books.cache.clear();
    books.cleared();
    books.read(null, "after a clear once readmitted");
    new Entries(client, cache(client, "books"), "isbn-", ENTRIES)
        .expecting(books)
        .read(null, "in another process, after a clear once readmitted");
    assertThat(authors.read(null, "other cache, after a clear once readmitted").hits)
        .isEqualTo(OTHER_ENTRIES);

    report(
        row
            + " | "
            + share
            + " | "
            + during.lost()
            + " | "
            + puts.errors
            + " | "
            + after.lost()
            + " | "
            + clearedDuring.hits
            + " | "
            + clearedAfter.hits
            + " |");
  }

  // ---- entries --------------------------------------------------------------------------------

  /** What one read pass found. */
  record Tally(int hits, int misses, int errors) {
    int lost() {
      return misses + errors;
    }
  }

  /**
   * The entries of one cache with the value each should have (none after a clear), and the
   * server each lives on.
   */
  final class Entries {
    final AsyncCacheClient<Object> client;
    final ShardwiseCache cache;
    final String prefix;
    final int count;
    final Map<Integer, String> expected = new HashMap<>();

    Entries(AsyncCacheClient<Object> client, ShardwiseCache cache, String prefix, int count) {
      this.client = client;
      this.cache = cache;
      this.prefix = prefix;
      this.count = count;
    }

    /** The same expectations as {@code other}'s: the same cache, seen by another process. */
    Entries expecting(Entries other) {
      expected.putAll(other.expected);
      return this;
    }

    String key(int i) {
      return prefix + i;
    }

    /** The entries whose key on the fleet lives on {@code node} in the current generation. */
    Set<Integer> on(Node node) {
      Set<Integer> ids = new TreeSet<>();
      for (int i = 0; i < count; i++) {
        if (client.nodeFor(cache.storageKey(key(i))).equals(node)) {
          ids.add(i);
        }
      }
      return ids;
    }

    Tally fill(String value) {
      return fill(value, null);
    }

    /**
     * Puts every entry; only entries on {@code down} (if not null) may fail, and keep what they
     * had.
     */
    Tally fill(String value, Node down) {
      Set<Integer> onDown = down == null ? Set.of() : on(down);
      int errors = 0;
      for (int i = 0; i < count; i++) {
        try {
          cache.put(key(i), value + "/" + i);
          expected.put(i, value + "/" + i);
        } catch (RuntimeException e) {
          if (!onDown.contains(i)) {
            throw new AssertionError(
                "the put of " + key(i) + " off the server that is out failed", e);
          }
          errors++;
        }
      }
      return new Tally(count - errors, 0, errors);
    }

    void cleared() {
      expected.clear();
    }

    /**
     * Reads every entry: a hit must have the value last written; a miss or an error is allowed
     * only for an entry whose key lives on {@code down} (none when null), or one that was cleared.
     */
    Tally read(Node down, String when) {
      Set<Integer> onDown = down == null ? Set.of() : on(down);
      int hits = 0;
      int misses = 0;
      int errors = 0;
      List<String> problems = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        String want = expected.get(i);
        try {
          Cache.ValueWrapper found = cache.get(key(i));
          if (found == null) {
            misses++;
            if (want != null && !onDown.contains(i)) {
              problems.add(key(i) + " missed");
            }
          } else {
            hits++;
            if (!Objects.equals(found.get(), want)) {
              problems.add(key(i) + " read " + found.get() + ", expected " + want);
            }
          }
        } catch (RuntimeException e) {
          errors++;
          if (!onDown.contains(i)) {
            problems.add(key(i) + " failed: " + e);
          }
        }
      }
      assertThat(problems)
          .as("%s %s: %d hits, %d misses, %d errors", cache.getName(), when, hits, misses, errors)
          .isEmpty();
      assertThat(misses + errors - (count - expected.size()))
          .as(
              "%s %s: entries lost beyond the %d on the server that is out",
              cache.getName(),
              when,
              onDown.size())
          .isLessThanOrEqualTo(onDown.size());
      return new Tally(hits, misses, errors);
    }
  }

  // ---- plumbing -------------------------------------------------------------------------------

  private String nextRound() {
    return "r" + ++round;
  }

  AsyncCacheClient<Object> client(ServerFleet<? extends ServerHandle> fleet, FailureMode mode) {
    AsyncCacheClient<Object> client =
        ShardwiseClient.builder()
            .backend(newBackend())
            .servers(String.join(",", fleet.addresses()))
            .timeout(TIMEOUT)
            .failover(
                FailoverOptions.builder()
                    .failureMode(mode)
                    .probeInterval(Duration.ofMillis(100))
                    .maxProbeInterval(Duration.ofMillis(400))
                    .build())
            .build();
    clients.add(client);
    return client;
  }

  static ShardwiseCache cache(AsyncCacheClient<Object> client, String name) {
    return new ShardwiseCache(name, client, CacheSettings.defaults().forCache(name), REFRESH);
  }

  static Set<Node> holders(AsyncCacheClient<Object> client, ShardwiseCache cache) {
    return cache.generationKeys().stream().map(client::nodeFor).collect(Collectors.toSet());
  }

  static Node nodeOf(AsyncCacheClient<Object> client, ServerHandle server) {
    return client.nodes().stream()
        .filter(n -> n.port() == server.port())
        .findFirst()
        .orElseThrow();
  }

  /** Pings the node until the client ejects it: after a kill at once, after a hang one timeout. */
  static void awaitEjected(AsyncCacheClient<Object> client, Node node) {
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    while (client.nodeStates().get(node) == NodeState.HEALTHY) {
      if (System.nanoTime() > deadline) {
        fail(node + " was not ejected within " + RECOVERY);
      }
      List<CompletableFuture<Duration>> pings = new ArrayList<>();
      for (int i = 0; i < FailoverOptions.DEFAULT_FAILURE_THRESHOLD; i++) {
        pings.add(client.ping(node));
      }
      for (CompletableFuture<Duration> ping : pings) {
        ping.handle((d, t) -> null).orTimeout(10, TimeUnit.SECONDS).join();
      }
    }
  }

  static void awaitReadmitted(AsyncCacheClient<Object> client) {
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    while (!client.nodeStates().values().stream().allMatch(s -> s == NodeState.HEALTHY)) {
      if (System.nanoTime() > deadline) {
        fail("not readmitted within " + RECOVERY + ": " + client.nodeStates());
      }
      sleep(20);
    }
  }

  /** Waits until every replica of the cache's generation holds the same counter (repaired). */
  static void awaitReplicasAgree(AsyncCacheClient<Object> client, ShardwiseCache cache) {
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    Set<Long> values = Set.of();
    while (System.nanoTime() < deadline) {
      cache.get("any"); // reads the generation, and repairs a replica behind it
      values =
          cache.generationKeys().stream()
              .map(k -> client.incr(k, 0, 0, Duration.ZERO).join())
              .collect(Collectors.toSet());
      if (values.size() == 1) {
        return;
      }
      sleep(REFRESH.toMillis());
    }
    fail("the replicas of " + cache.getName() + " still differ: " + values);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  void report(String row) {
    REPORT.computeIfAbsent(backendName(), b -> new ArrayList<>()).add(row);
    System.out.println("[cache outage] " + row);
  }

  @AfterAll
  static void writeReport() {
    for (Map.Entry<String, List<String>> e : REPORT.entrySet()) {
      List<String> lines = new ArrayList<>();
      lines.add(
          "| backend | servers | outage | failure mode | server | entries on it (of "
              + ENTRIES
              + ") | lost during | failed puts during | lost after readmission"
              + " | hits after a clear during | hits after readmission |");
      lines.add("|---|---|---|---|---|---|---|---|---|---|---|");
      List<String> rows = new ArrayList<>(e.getValue());
      rows.sort(null);
      lines.addAll(rows);
      try {
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", "cache-outage-" + e.getKey() + ".md"), lines);
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    }
  }
}
