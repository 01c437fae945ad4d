package io.shardwise.benchmarks.e2e;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.near.DropCause;
import io.shardwise.core.internal.near.MovedKeys;
import io.shardwise.core.internal.near.NearCache;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one drop of the near cache costs over a full cache: the sweep that a server-list change
 * ({@link NearCache#dropMoved}, the keys whose replicas moved) or a node event ({@link
 * NearCache#dropAll}) starts on the maintenance executor, from the epoch's move until the sweep has
 * carried or removed every entry. Until then the kept keys are not served here (their gets go to the
 * servers), so this time is also the window of extra server reads after a change.
 *
 * <p>Each invocation starts from a cache refilled with {@link #entries} keys of 100 bytes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 20)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class NearCacheSweepBenchmark {

  @Param({"100000"})
  public int entries;

  /** The router of both placements: 5 servers, then a sixth added, which takes about a sixth of the keys. */
  @Param({"ketama", "hrw"})
  public String router;

  private NearCache near;
  /** The members' health: every server up, as the sweep checks before it keeps an entry. */
  private FleetHealth health;
  private String[] keys;
  private Topology five;
  private Topology six;
  private final CachedValue value = CachedValue.of(new byte[100], 0);

  @Setup(Level.Trial)
  public void setUp() {
    near = new NearCache(NearCacheOptions.defaults().withHotOnly(false).withMaxEntries(2L * entries), true);
    keys = new String[entries];
    for (int k = 0; k < entries; k++) {
      keys[k] = "user:" + k;
    }
    health = new FleetHealth(new ClientOverheadBenchmark.StubBackend(), FailoverOptions.defaults(), List.of(), ClientMetrics.NONE);
    Map<String, Member> members = new HashMap<>();
    five = placement("127.0.0.1:11211,127.0.0.1:11212,127.0.0.1:11213,127.0.0.1:11214,127.0.0.1:11215", members);
    six = placement("127.0.0.1:11211,127.0.0.1:11212,127.0.0.1:11213,127.0.0.1:11214,127.0.0.1:11215,127.0.0.1:11216", members);
  }

  private Topology placement(String servers, Map<String, Member> members) {
    Router r = RouterSpec.of(router).build(ServerList.parse(servers));
    Member[] ms = new Member[r.size()];
    for (int i = 0; i < ms.length; i++) {
      Node n = r.nodes().get(i);
      ms[i] =
          members.computeIfAbsent(
              Member.identity(n),
              id -> {
                Member m = new Member(n, null);
                health.admit(m);
                return m;
              });
    }
    return new Topology(r, HashTag.NONE, ms, null);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    health.close();
  }

  /** Refills the cache, and waits for Caffeine's maintenance, so that the sweep alone is timed. */
  @Setup(Level.Invocation)
  public void fill() {
    for (String key : keys) {
      near.offer(near.ticket(key), value);
    }
    ForkJoinPool.commonPool().awaitQuiescence(1, TimeUnit.MINUTES);
    if (near.entries() != entries) {
      throw new IllegalStateException("the cache holds " + near.entries() + " entries, not " + entries);
    }
  }

  /** A server added: the sweep tests each key's replicas in both placements, and keeps the others. */
  @Benchmark
  public long serverAdded() {
    Predicate<String> moved = MovedKeys.of(five, six);
    near.dropMoved(moved);
    ForkJoinPool.commonPool().awaitQuiescence(1, TimeUnit.MINUTES);
    return near.entries();
  }

  /** A node event: every entry goes. */
  @Benchmark
  public long everything() {
    near.dropAll(DropCause.NODE);
    ForkJoinPool.commonPool().awaitQuiescence(1, TimeUnit.MINUTES);
    return near.entries();
  }
}
