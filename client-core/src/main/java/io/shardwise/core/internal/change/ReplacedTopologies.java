package io.shardwise.core.internal.change;

import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topologies replaced but possibly still in use, and so which open members nothing uses any
 * more. A request counts itself on the topology it uses ({@code Topology.active}) until its future
 * completes, re-reading the reference after counting: a replaced topology whose count is 0 is used
 * by no request and never will be. Used on the topology thread only.
 */
final class ReplacedTopologies {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.topology");

  private final List<Topology> replaced = new ArrayList<>();
  private final long stuckAfterNanos;
  /**
   * The members of the change being prepared (its new connections are being opened): a drain
   * that runs meanwhile must not close one it kept from the list in force.
   */
  private Member[] preparing = new Member[0];

  /**
   * How long a replaced topology may stay in use: every request completes within its timeout, so
   * one still counted much later is a leak of this client, not a slow request.
   */
  ReplacedTopologies(Duration requestTimeout) {
    this.stuckAfterNanos = Math.max(Duration.ofMinutes(1).toNanos(), 10 * requestTimeout.toNanos());
  }

  void add(Topology t) {
    t.replacedAtNanos = System.nanoTime();
    replaced.add(t);
  }

  void preparing(Member[] members) {
    preparing = members;
  }

  boolean isEmpty() {
    return replaced.isEmpty();
  }

  /**
   * Forgets the replaced topologies nothing uses any more, then returns the members of {@code open}
   * that neither {@code now} nor a replaced topology still in use refers to.
   */
  List<Member> unused(Topology now, Collection<Member> open) {
    long nowNanos = System.nanoTime();
    long stuck = nowNanos - stuckAfterNanos;
    replaced.removeIf(t -> t != now && (t.active.sum() == 0 || forget(t, stuck)));
    Set<Member> used = new HashSet<>(List.of(preparing));
    now.collectMembers(used, nowNanos);
    replaced.forEach(t -> t.collectMembers(used, nowNanos));
    List<Member> unused = new ArrayList<>();
    for (Member m : open) {
      if (!used.contains(m)) {
        unused.add(m);
      }
    }
    return unused;
  }

  /** Whether to stop waiting for {@code t}, replaced before {@code stuck} and still counted in use. */
  private static boolean forget(Topology t, long stuck) {
    if (t.replacedAtNanos - stuck > 0) {
      return false;
    }
    LOG.warn(
        "a replaced server list ({} servers) is still counted in use {} s after it was replaced; its"
            + " servers are closed anyway (requests still on them fail)",
        t.nodes.size(),
        Duration.ofNanos(System.nanoTime() - t.replacedAtNanos).toSeconds());
    return true;
  }
}
