package io.shardwise.it.failure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeState;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.it.TcpRelay;
import io.shardwise.testing.ServerHandle;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The failover contract on a shared fleet, against the same 5 real servers as {@link
 * FailureInjection} and with the client's default settings: a stalled server costs other
 * applications nothing and is never flushed; a flapping server never makes the client read an old
 * value; clients with different views of a server read old values only within the documented
 * bound; a stalled client ejects nothing, and every server stalled at once no more than the cap. The
 * figures go to {@code target/failure-<backend>.md} with the others.
 *
 * <p>The flapping runs are short by default; {@code -Dfailback.flap.runs=5
 * -Dfailback.flap.seconds=30} runs what {@code docs/failure.md} reports, and {@code
 * -Dfailback.flap.timeout=250ms} sets the client's timeout in them (the backend's default, 1 s,
 * otherwise).
 */
abstract class FailbackScenarios extends FailureInjection {

  static final int OTHER_KEYS = 20_000;
  static final int FLAP_RUNS = Integer.getInteger("failback.flap.runs", 1);
  static final long FLAP_SECONDS = Long.getLong("failback.flap.seconds", 8);
  /** The client's timeout in the flapping runs, or null for the backend's default. */
  static final Duration FLAP_TIMEOUT = flapTimeout(System.getProperty("failback.flap.timeout"));

  private static Duration flapTimeout(String text) {
    if (text == null) {
      return null;
    }
    Duration timeout = io.shardwise.spi.SettingsReader.parseDuration(text);
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("failback.flap.timeout must be a positive duration such as 250ms but was " + text);
    }
    return timeout;
  }
  static final int CAP = FailoverOptions.defaults().maxEjectedNodes(5);

  /** Another application's plain client (spymemcached, Lettuce) writing keys of its own. */
  interface OtherWriter extends AutoCloseable {
    void write(int keys);

    /** The keys written that are not on the fleet with their value, read directly: "key=what was read". */
    List<String> missing(int keys);

    @Override
    void close();
  }

  abstract OtherWriter otherWriter();

  /** Whole-server flushes the server has run so far (memcached {@code cmd_flush}, Redis FLUSHDB/FLUSHALL calls). */
  abstract long flushCommands(ServerHandle server);

  /**
   * The server's counters of the ways an item can go (deletes, evictions, expiries, flushes), to
   * say where a lost key of the other application went.
   */
  abstract Map<String, Long> lossCounters(ServerHandle server);

  private List<Map<String, Long>> lossCounters() {
    return fleet().servers().stream().map(s -> lossCounters((ServerHandle) s)).toList();
  }

  /** Per server, the counters that moved between {@code before} and {@code after}. */
  private static String moved(List<Map<String, Long>> before, List<Map<String, Long>> after) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < before.size(); i++) {
      Map<String, Long> b = before.get(i);
      StringBuilder changed = new StringBuilder();
      after.get(i).forEach((name, value) -> {
        long delta = value - b.getOrDefault(name, 0L);
        if (delta != 0) {
          changed.append(' ').append(name).append(delta > 0 ? " +" : " ").append(delta);
        }
      });
      out.append("; server ").append(i).append(':').append(changed.length() == 0 ? " no change" : changed);
    }
    return out.toString();
  }

  private long ejections() {
    return events.stream().filter(s -> s.event().isEjection()).count();
  }

  private static void awaitAllHealthy(AsyncCacheClient<?> client, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (client.nodeStates().containsValue(NodeState.EJECTED) || client.nodeStates().containsValue(NodeState.PROBING)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not every node readmitted within " + within + ": " + client.nodeStatus());
      }
      Thread.sleep(20);
    }
  }

  private long[] flushCounts() {
    List<? extends ServerHandle> servers = fleet().servers();
    long[] counts = new long[servers.size()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = flushCommands(servers.get(i));
    }
    return counts;
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }

  // ---- a shared fleet ------------------------------------------------------------------------

  @Test
  void stalledServersCostAnotherApplicationNoKeyAndAreNeverFlushed() throws Exception {
    try (OtherWriter other = otherWriter()) {
      other.write(OTHER_KEYS);
      assertThat(other.missing(OTHER_KEYS)).as("the other application's keys just written").isEmpty();
      long[] flushesBefore = flushCounts();
      List<Map<String, Long>> countersBefore = lossCounters();
      CacheClient<String> sync = defaultClient();
      VersionedLoad load = new VersionedLoad(sync, KEYS, THREADS).start();
      Thread.sleep(2000);
      long[] stalls = {1500, 3000};
      ServerHandle[] stalled = {fleet().server(1), fleet().server(3)};
      for (int i = 0; i < 2; i++) {
        stalled[i].pause();
        Thread.sleep(stalls[i]);
        stalled[i].resume();
        awaitAllHealthy(client, Duration.ofSeconds(15));
        Thread.sleep(1000);
      }
      load.close();
      List<String> missing = other.missing(OTHER_KEYS);
      int present = OTHER_KEYS - missing.size();
      long[] flushesAfter = flushCounts();
      long flushes = 0;
      for (int i = 0; i < flushesAfter.length; i++) {
        flushes += flushesAfter[i] - flushesBefore[i];
      }
      if (!missing.isEmpty()) {
        throw new AssertionError(
            "the other application lost " + missing.size() + " keys, the first: "
                + missing.subList(0, Math.min(5, missing.size())) + "; counters over the run"
                + moved(countersBefore, lossCounters()));
      }
      assertThat(flushes).as("flush commands on any server").isZero();
      assertThat(load.wrong).isEmpty();
      assertThat(load.stale).as("old values read").isEmpty();
      report(String.format(
          "| shared fleet, stalls of 1.5 s and 3 s | %d ejections, %d readmissions | other application: %d of %d keys kept | %d flush commands | %d reads, %d writes, %d errors, 0 old |",
          ejections(), events.stream().filter(e -> e.event().isReadmission()).count(), present, OTHER_KEYS, flushes,
          load.reads.get(), load.writes.get(), load.failureCount.get()));
    }
  }

  // ---- flapping ------------------------------------------------------------------------------

  /** How a server flaps. */
  enum Flap {
    /** SIGSTOP 2 s, SIGCONT 2 s. */
    STOP,
    /** kill -9, restart after 1 s, up 1 s. */
    KILL
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Flap.class)
  void aFlappingServerNeverMakesTheClientReadAnOldValue(Flap flap) throws Exception {
    flapping(flap, 1);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Flap.class)
  void withTwoReplicasAFlappingServerNeverMakesTheClientReadAnOldValue(Flap flap) throws Exception {
    flapping(flap, 2);
  }

  private void flapping(Flap flap, int replicas) throws Exception {
    long totalReads = 0;
    long totalHits = 0;
    long totalErrors = 0;
    long totalEjections = 0;
    List<Long> oldPerRun = new ArrayList<>();
    for (int run = 1; run <= FLAP_RUNS; run++) {
      if (run > 1) {
        closeClient();
        reset();
      }
      client = (FLAP_TIMEOUT == null ? builder() : builder().timeout(FLAP_TIMEOUT)).replicas(replicas).build();
      CacheClient<String> sync = client.sync();
      VersionedLoad load = new VersionedLoad(sync, KEYS, THREADS).start();
      Thread.sleep(2000);
      ServerHandle victim = fleet().server(2);
      long until = System.nanoTime() + FLAP_SECONDS * 1_000_000_000L;
      while (System.nanoTime() < until) {
        if (flap == Flap.STOP) {
          victim.pause();
          Thread.sleep(2000);
          victim.resume();
          Thread.sleep(2000);
        } else {
          victim.kill();
          Thread.sleep(1000);
          victim.restart();
          Thread.sleep(1000);
        }
      }
      Thread.sleep(3000); // the last readmission, and reads after it
      load.close();
      assertThat(load.wrong).isEmpty();
      assertThat(load.stale).as("old values read in run %d: %s", run, load.stale).isEmpty();
      oldPerRun.add((long) load.stale.size());
      totalReads += load.reads.get();
      totalHits += load.hits.get();
      totalErrors += load.failureCount.get();
      totalEjections += ejections();
    }
    report(String.format(
        "| flapping, %s%s%s | %d run(s) of %d s, 8 threads | %d ejections | %d reads (%d hits), %d errors | old values per run: %s |",
        flap == Flap.STOP ? "SIGSTOP 2 s / SIGCONT 2 s" : "kill -9, restart after 1 s, every 2 s",
        replicas == 1 ? "" : ", replicas " + replicas,
        FLAP_TIMEOUT == null ? "" : ", timeout " + FLAP_TIMEOUT.toMillis() + " ms",
        FLAP_RUNS, FLAP_SECONDS, totalEjections, totalReads, totalHits, totalErrors, oldPerRun));
  }

  // ---- several clients -----------------------------------------------------------------------

  @Test
  void clientsThatDisagreeAboutANodeReadOldValuesOnlyWithinTheBound() throws Exception {
    int keys = 3000;
    int perClient = 3;
    long stallMillis = 4000;
    ServerHandle shared = fleet().server(2);
    try (TcpRelay relay = new TcpRelay(shared.host(), shared.port())) {
      List<String> direct = new ArrayList<>();
      List<String> relayed = new ArrayList<>();
      for (int i = 0; i < fleet().size(); i++) {
        ServerHandle s = fleet().server(i);
        direct.add("s" + i + "=" + s.address());
        relayed.add("s" + i + "=" + (i == 2 ? relay.address() : s.address()));
      }
      // Client 0 reaches s2 through the relay; 1 and 2 directly. Routing hashes the names, so all
      // three place every key alike.
      List<CacheClient<String>> views = new ArrayList<>();
      client = builder().servers(String.join(",", relayed)).router(RouterSpec.of("hrw")).build();
      views.add(client.sync());
      for (int c = 1; c < 3; c++) {
        views.add(
            another(
                    ShardwiseClient.builder()
                        .backend(newBackend())
                        .servers(String.join(",", direct))
                        .router(RouterSpec.of("hrw"))
                        .codec(Codecs.utf8()))
                .sync());
      }
      VersionHistory history = new VersionHistory(keys);
      AtomicBoolean running = new AtomicBoolean(true);
      AtomicLongArray maxStale = new AtomicLongArray(3);
      AtomicLongArray staleReads = new AtomicLongArray(3);
      AtomicLong reads = new AtomicLong();
      List<Thread> threads = new ArrayList<>();
      int writers = 3 * perClient;
      for (int t = 0; t < writers; t++) {
        int thread = t;
        int view = t / perClient;
        threads.add(new Thread(() -> {
          CacheClient<String> sync = views.get(view);
          SplittableRandom random = new SplittableRandom(thread);
          long[] next = new long[keys];
          while (running.get()) {
            try {
              if (random.nextBoolean()) {
                int i = thread + writers * random.nextInt(keys / writers);
                long version = ++next[i];
                sync.set("mv:" + i, "mv:" + i + "|" + version, Duration.ZERO);
                history.confirmed(i, version, System.nanoTime());
              } else {
                int i = random.nextInt(keys);
                long start = System.nanoTime();
                String value = sync.get("mv:" + i);
                reads.incrementAndGet();
                if (value != null) {
                  long version = Long.parseLong(value.substring(value.lastIndexOf('|') + 1));
                  long stale = history.stalenessNanos(i, version, start);
                  if (stale > 0) {
                    staleReads.incrementAndGet(view);
                    maxStale.accumulateAndGet(view, stale, Math::max);
                  }
                }
              }
            } catch (RuntimeException e) {
              // timeouts through the stalled relay, before the node is ejected
            }
          }
        }, "view-" + view + "-" + t));
      }
      threads.forEach(Thread::start);
      Thread.sleep(3000);
      long stallAt = System.nanoTime();
      relay.stall();
      Thread.sleep(stallMillis);
      relay.resume();
      awaitAllHealthy(client, Duration.ofSeconds(15));
      long readmittedAfter = System.nanoTime() - stallAt;
      Thread.sleep(3000);
      running.set(false);
      for (Thread t : threads) {
        t.join(10_000);
      }
      FailoverOptions d = FailoverOptions.defaults();
      long timeout = newBackend().defaultRequestTimeout().toNanos();
      long bound = TimeUnit.MILLISECONDS.toNanos(stallMillis) + d.maxProbeInterval().toNanos() + d.probeTimeout().toNanos() + 2 * timeout;
      long max = Math.max(maxStale.get(0), Math.max(maxStale.get(1), maxStale.get(2)));
      assertThat(ejections()).as("the client behind the relay ejected the node").isPositive();
      assertThat(max).as("largest staleness, ns (bound %d ms)", ms(bound)).isLessThanOrEqualTo(bound);
      report(String.format(
          "| 3 clients, one cut off from a node for %d s | readmitted by it %d ms after the cut | %d reads; old values read by client 0/1/2: %d/%d/%d | largest staleness %d/%d/%d ms (bound: cut + probe-max-interval + probe-timeout + 2 timeouts = %d ms) |",
          stallMillis / 1000, ms(readmittedAfter), reads.get(), staleReads.get(0), staleReads.get(1), staleReads.get(2),
          ms(maxStale.get(0)), ms(maxStale.get(1)), ms(maxStale.get(2)), ms(bound)));
    }
  }

  // ---- client-side trouble -------------------------------------------------------------------

  @Test
  void aClientProcessThatStopsForLongerThanItsTimeoutEjectsNothing() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process child =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                StalledClientMain.class.getName(),
                backendName(),
                String.join(",", fleet().addresses()),
                "12")
            .redirectErrorStream(true)
            .start();
    List<String> output = new CopyOnWriteArrayList<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          output.add(line);
        }
      } catch (IOException e) {
        // the child ended
      }
    });
    reader.setDaemon(true);
    reader.start();
    try {
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (!output.contains("READY")) {
        assertThat(System.nanoTime()).as("child ready; output: %s", output).isLessThan(deadline);
        assertThat(child.isAlive()).as("child alive; output: %s", output).isTrue();
        Thread.sleep(20);
      }
      Thread.sleep(3000);
      signal(child.pid(), "STOP");
      Thread.sleep(5500); // longer than the blocking view's safety net (4 timeouts + 1 s)
      signal(child.pid(), "CONT");
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("child finished; output: %s", output).isTrue();
      reader.join(5000);
    } finally {
      child.destroyForcibly();
    }
    String result = output.stream().filter(l -> l.startsWith("RESULT")).findFirst()
        .orElseThrow(() -> new AssertionError("no result; output: " + output));
    long ejected = field(result, "ejections");
    assertThat(field(result, "stalls")).as("the client saw its own stall; output: %s", output).isPositive();
    // Without the stall detection each server would find more timeouts than the threshold on
    // waking, and the cap would be all that held: the client must eject nothing at all.
    assertThat(ejected).as("ejections; output: %s", output).isZero();
    assertThat(field(result, "incomplete")).as("blocking calls that blamed a backend; output: %s", output).isZero();
    report(String.format(
        "| client process stopped 5.5 s (timeout 1 s) | %d ejections (cap %d) | %d timeouts not held against servers | %s |",
        ejected, CAP, field(result, "stall-discounts"), result.substring("RESULT ".length())));
  }

  @Test
  void everyServerStoppedAtOnceEjectsNoMoreThanTheCap() throws Exception {
    CacheClient<String> sync = defaultClient();
    VersionedLoad load = new VersionedLoad(sync, KEYS, THREADS).start();
    Thread.sleep(2000);
    for (ServerHandle s : fleet().servers()) {
      s.pause();
    }
    long mostOut = 0;
    long until = System.nanoTime() + 4_000_000_000L;
    while (System.nanoTime() < until) {
      mostOut = Math.max(mostOut, client.nodeStates().values().stream().filter(s -> s != NodeState.HEALTHY).count());
      Thread.sleep(20);
    }
    for (ServerHandle s : fleet().servers()) {
      s.resume();
    }
    awaitAllHealthy(client, Duration.ofSeconds(20));
    Thread.sleep(1000);
    load.close();
    assertThat(mostOut).as("nodes out while every server was stopped").isLessThanOrEqualTo(CAP);
    assertThat(load.stale).isEmpty();
    assertThat(load.wrong).isEmpty();
    report(String.format(
        "| every server stopped 4 s at once | %d nodes out at most (cap %d) | %d ejections in all | %d reads, %d writes, %d errors, 0 old |",
        mostOut, CAP, ejections(), load.reads.get(), load.writes.get(), load.failureCount.get()));
  }

  private static void signal(long pid, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
  }

  private static long field(String line, String name) {
    Matcher m = Pattern.compile("\\b" + Pattern.quote(name) + "=(\\d+)").matcher(line);
    if (!m.find()) {
      throw new AssertionError("no " + name + " in " + line);
    }
    return Long.parseLong(m.group(1));
  }
}
