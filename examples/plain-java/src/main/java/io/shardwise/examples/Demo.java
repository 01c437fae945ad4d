package io.shardwise.examples;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeState;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.routing.Node;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * The demo {@code ./demo.sh} runs: for memcached, then Redis, three local servers, a client built
 * from properties, keys written and counted per server, one server killed (its keys are rerouted)
 * and brought back (it is readmitted, and its keys come home).
 *
 * <p>System properties: {@code demo.dir} (the directory where {@code scripts/local-fleet.sh} keeps
 * each server's pid file and start script), {@code demo.memcached} and {@code demo.redis} (the
 * servers, comma separated; either may be absent).
 */
public final class Demo {

  private static final int KEYS = 3000;
  private static final long START = System.nanoTime();

  private final String kind;
  private final List<String> servers;
  private final Path dir;
  private final Traffic traffic = new Traffic();
  private final Map<String, String> labels = new LinkedHashMap<>();
  private volatile CountDownLatch readmitted = new CountDownLatch(1);

  private Demo(String kind, List<String> servers, Path dir) {
    this.kind = kind;
    this.servers = servers;
    this.dir = dir;
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(required("demo.dir"));
    for (String kind : List.of("memcached", "redis")) {
      String servers = System.getProperty("demo." + kind, "");
      if (!servers.isBlank()) {
        new Demo(kind, List.of(servers.split(",")), dir).run();
      }
    }
  }

  private void run() throws Exception {
    banner("Shardwise over " + servers.size() + " " + kind + " servers");
    Properties properties = new Properties();
    properties.setProperty("shardwise.backend", kind);
    properties.setProperty("shardwise.servers", String.join(",", servers));
    properties.setProperty("shardwise.router", "ketama");
    properties.setProperty("shardwise.timeout", "500ms");
    properties.setProperty("shardwise.failure-mode", "redistribute");
    properties.setProperty("shardwise.probe-interval", "200ms");
    properties.setProperty("shardwise.probe-max-interval", "1s");
    properties.setProperty("shardwise.codec", "utf8");
    if (kind.equals("memcached")) {
      properties.setProperty("shardwise.memcached.max-reconnect-delay", "1s");
    }
    System.out.println("configuration (ShardwiseConfig.from(properties)):");
    new java.util.TreeMap<>(properties).forEach((k, v) -> System.out.println("  " + k + "=" + v));
    ShardwiseConfig config = ShardwiseConfig.from(properties);

    try (AsyncCacheClient<String> cache =
        config.build(String.class, builder -> builder.metrics(traffic).listener(this::onEvent))) {
      for (int i = 0; i < cache.nodes().size(); i++) {
        labels.put(cache.nodes().get(i).name(), "server " + (char) ('A' + i));
      }
      awaitReady(cache);

      step("1. write " + KEYS + " keys (user:0 .. user:" + (KEYS - 1) + ")");
      List<CompletableFuture<Void>> writes = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        writes.add(cache.set(key(i), "profile of user " + i, Duration.ofMinutes(10)));
      }
      CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]))
          .get(30, TimeUnit.SECONDS);
      Map<Node, Integer> spread = new LinkedHashMap<>();
      cache.nodes().forEach(n -> spread.put(n, 0));
      for (int i = 0; i < KEYS; i++) {
        spread.merge(cache.nodeFor(key(i)), 1, Integer::sum);
      }
      System.out.println("where the router put them (ketama):");
      spread.forEach((node, count) -> System.out.println(row(node, count, KEYS, "keys")));

      Node victim = cache.nodes().get(1);
      step(
          "2. kill "
              + label(victim)
              + " (kill -9) and keep reading: a miss is rewritten, as a cache-aside app does");
      kill(victim);
      traffic.reset();
      Round during = readThrough(cache, Duration.ofSeconds(2));
      System.out.println("requests per server while " + label(victim) + " is down:");
      printRequests(cache, during);
      System.out.println("its keys went to:  " + traffic.redirectsFrom(victim.name(), labels));
      System.out.println(
          "reads: "
              + during.hits
              + " hits, "
              + during.misses
              + " misses (its keys, now cached"
              + " elsewhere), "
              + during.errors
              + " errors (before the ejection)");
      System.out.println("state: " + states(cache));

      step(
          "3. restart "
              + label(victim)
              + " on the same port; the client probes it, deletes on it the keys rewritten"
              + " elsewhere meanwhile (rejoin=journal, the default: nothing else is touched) and"
              + " readmits it");
      readmitted = new CountDownLatch(1);
      restart(victim);
      long waitStart = System.nanoTime();
      while (readmitted.getCount() > 0
          && System.nanoTime() - waitStart < TimeUnit.SECONDS.toNanos(30)) {
        // Stop at the readmission, so that the reads that find its keys gone are counted below.
        readThrough(cache, Duration.ofMillis(200), () -> readmitted.getCount() == 0);
      }
      if (readmitted.getCount() > 0) {
        System.out.println("!! not readmitted within 30 s; state: " + states(cache));
      }
      traffic.reset();
      Round after = readThrough(cache, Duration.ofSeconds(1));
      System.out.println("requests per server after the readmission:");
      printRequests(cache, after);
      System.out.println(
          "reads: "
              + after.hits
              + " hits, "
              + after.misses
              + " misses (its keys: it restarted empty, and"
              + " the copies written elsewhere are deleted), "
              + after.errors
              + " errors");
      System.out.println("state: " + states(cache));
    }
    System.out.println("client closed");
  }

  // ---- traffic -------------------------------------------------------------------------------

  private static final class Round {
    long hits;
    long misses;
    long errors;
  }

  /** Reads every key, rewriting misses, for {@code period}. */
  private static Round readThrough(AsyncCacheClient<String> cache, Duration period)
      throws InterruptedException {
    return readThrough(cache, period, () -> false);
  }

  /** Reads every key, rewriting misses, for {@code period} or until {@code stop} says so. */
  private static Round readThrough(
      AsyncCacheClient<String> cache, Duration period, BooleanSupplier stop)
      throws InterruptedException {
    Round round = new Round();
    long end = System.nanoTime() + period.toNanos();
    int i = 0;
    while (System.nanoTime() < end && !stop.getAsBoolean()) {
      List<CompletableFuture<?>> batch = new ArrayList<>();
      for (int j = 0; j < 50; j++, i = (i + 1) % KEYS) {
        String key = key(i);
        String value = "profile of user " + i;
        batch.add(
            cache
                .get(key)
                .thenCompose(
                    found -> {
                      synchronized (round) {
                        if (found != null) {
                          round.hits++;
                        } else {
                          round.misses++;
                        }
                      }
                      return found != null
                          ? CompletableFuture.completedFuture(null)
                          : cache.set(key, value, Duration.ofMinutes(10));
                    })
                .exceptionally(
                    failure -> {
                      synchronized (round) {
                        round.errors++;
                      }
                      return null;
                    }));
      }
      try {
        CompletableFuture.allOf(batch.toArray(new CompletableFuture<?>[0]))
            .get(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        // counted above
      }
    }
    return round;
  }

  private void printRequests(AsyncCacheClient<String> cache, Round round) {
    long total = 0;
    for (Node node : cache.nodes()) {
      total += traffic.requests(node.name());
    }
    for (Node node : cache.nodes()) {
      long failed = traffic.failures(node.name());
      System.out.println(
          row(node, traffic.requests(node.name()), total, "requests")
              + (failed > 0 ? "  (" + failed + " failed)" : ""));
    }
  }

  /** Counts requests per server and where requests of an ejected server's keys went. */
  private static final class Traffic implements ClientMetrics {
    final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    final Map<String, Map<String, LongAdder>> redirects = new ConcurrentHashMap<>();

    @Override
    public void request(Node node, String operation, long latencyNanos, Throwable failure) {
      requests.computeIfAbsent(node.name(), n -> new LongAdder()).increment();
      if (failure != null) {
        failures.computeIfAbsent(node.name(), n -> new LongAdder()).increment();
      }
    }

    @Override
    public void redirected(Node primary, Node to, String reason) {
      redirects
          .computeIfAbsent(primary.name(), n -> new ConcurrentHashMap<>())
          .computeIfAbsent(to.name(), n -> new LongAdder())
          .increment();
    }

    long requests(String node) {
      LongAdder a = requests.get(node);
      return a == null ? 0 : a.sum();
    }

    long failures(String node) {
      LongAdder a = failures.get(node);
      return a == null ? 0 : a.sum();
    }

    String redirectsFrom(String node, Map<String, String> labels) {
      Map<String, LongAdder> to = redirects.getOrDefault(node, Map.of());
      List<String> parts = new ArrayList<>();
      to.forEach((n, count) -> parts.add(labels.get(n) + " " + count.sum() + " requests"));
      return parts.isEmpty() ? "(none)" : String.join(", ", parts);
    }

    void reset() {
      requests.clear();
      failures.clear();
      redirects.clear();
    }
  }

  private void onEvent(NodeEvent event) {
    System.out.printf(
        "  [%5.2fs] event: %s %s -> %s: %s%n",
        (System.nanoTime() - START) / 1e9,
        label(event.node()),
        event.from(),
        event.to(),
        event.detail());
    if (event.to() == NodeState.HEALTHY) {
      readmitted.countDown();
    }
  }

  // ---- servers -------------------------------------------------------------------------------

  private void kill(Node node) throws Exception {
    Path pidFile = dir.resolve(kind + "-" + node.port() + ".pid");
    long pid = Long.parseLong(Files.readString(pidFile).strip());
    ProcessHandle process =
        ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no process " + pid));
    process.destroyForcibly();
    process.onExit().get(10, TimeUnit.SECONDS);
    System.out.printf(
        "  [%5.2fs] killed %s (pid %d)%n", (System.nanoTime() - START) / 1e9, label(node), pid);
  }

  private void restart(Node node) throws IOException, InterruptedException {
    Path start = dir.resolve(kind + "-" + node.port() + ".start");
    Process p = new ProcessBuilder(start.toString()).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(start + " failed");
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!answers(node) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    System.out.printf(
        "  [%5.2fs] restarted %s (empty)%n", (System.nanoTime() - START) / 1e9, label(node));
  }

  private static boolean answers(Node node) {
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(new java.net.InetSocketAddress(node.host(), node.port()), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void awaitReady(AsyncCacheClient<?> cache) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (CompletableFuture<Duration> ping : cache.pingAll().values()) {
        try {
          ping.get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
          all = false;
        }
      }
      if (all) {
        return;
      }
      Thread.sleep(100);
    }
  }

  // ---- printing ------------------------------------------------------------------------------

  private static String key(int i) {
    return "user:" + i;
  }

  private String label(Node node) {
    return labels.getOrDefault(node.name(), "server") + " (" + node.address() + ")";
  }

  private String row(Node node, long count, long total, String unit) {
    double share = total == 0 ? 0 : (double) count / total;
    return String.format(
        "  %-30s %6d %-8s %5.1f%%  %s",
        label(node), count, unit, share * 100, "#".repeat((int) Math.round(share * 60)));
  }

  private String states(AsyncCacheClient<?> cache) {
    List<String> parts = new ArrayList<>();
    cache.nodeStates().forEach((node, state) -> parts.add(labels.get(node.name()) + " " + state));
    return String.join(", ", parts);
  }

  private static void banner(String title) {
    System.out.println();
    System.out.println("=".repeat(title.length() + 4));
    System.out.println("  " + title);
    System.out.println("=".repeat(title.length() + 4));
  }

  private static void step(String text) {
    System.out.println();
    System.out.println("--- " + text);
  }

  private static String required(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("the system property " + property + " is required");
    }
    return value;
  }
}
