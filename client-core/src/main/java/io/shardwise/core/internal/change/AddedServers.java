package io.shardwise.core.internal.change;

import io.shardwise.core.internal.health.Failures;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.spi.Backend;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members of the next placement: the open ones kept, and one per added server, connected and
 * admitted before any request can reach it. A server added back gets the member it had before
 * (its journal and old-copy marks), as long as the history still remembers it.
 */
final class AddedServers {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.topology");

  /**
   * A change with its members: the ones kept, and the new ones; {@code earlier} maps a server
   * added back to the member it had before, which the history still remembers.
   */
  record Prepared(
      Placement placement,
      List<Node> list,
      Router router,
      Member[] members,
      List<Member> added,
      Map<Member, Member> earlier) {}

  private final Backend backend;
  private final FleetHealth health;
  private final Duration requestTimeout;
  private final Duration connectWait;

  AddedServers(Backend backend, FleetHealth health, Duration requestTimeout, Duration connectWait) {
    this.backend = backend;
    this.health = health;
    this.requestTimeout = requestTimeout;
    this.connectWait = connectWait;
  }

  /**
   * Opens a connection to each server of {@code router} that has no open member; a failure closes
   * those opened and is thrown.
   */
  Prepared connect(Placement placement, List<Node> list, Router router, Topology current, Map<String, Member> open) {
    List<Node> placed = router.nodes();
    Member[] members = new Member[placed.size()];
    List<Member> added = new ArrayList<>();
    Map<Member, Member> earlier = new HashMap<>();
    Map<String, Member> remembered = ChangeHistory.remembered(current, open);
    try {
      for (int i = 0; i < members.length; i++) {
        Node node = placed.get(i);
        Member m = open.get(Member.identity(node));
        if (m == null) {
          NodeConnection c = backend.connect(node, requestTimeout);
          m = new Member(node, c);
          added.add(m);
          Member before = remembered.get(Member.identity(node));
          if (before != null) {
            earlier.put(m, before);
          }
        }
        members[i] = m;
      }
    } catch (RuntimeException e) {
      added.forEach(m -> m.connection.close());
      throw e;
    }
    return new Prepared(placement, list, router, members, added, earlier);
  }

  /**
   * Waits for the first connection attempt of each added member (at most the connect wait), then
   * admits it: healthy if it answers a ping, else out and probed like any ejected server.
   */
  CompletableFuture<Prepared> admit(Prepared p) {
    List<CompletableFuture<?>> ready = new ArrayList<>();
    for (Member m : p.added()) {
      ready.add(m.connection.ready().handle((x, y) -> null));
    }
    long wait = connectWait.toNanos();
    return CompletableFuture.allOf(ready.toArray(new CompletableFuture<?>[0]))
        .completeOnTimeout(null, wait, TimeUnit.NANOSECONDS)
        .thenCompose(x -> probe(p.added(), p.earlier(), wait))
        .thenApply(x -> p);
  }

  private CompletableFuture<Void> probe(List<Member> added, Map<Member, Member> earlier, long waitNanos) {
    List<CompletableFuture<Void>> pings = new ArrayList<>();
    for (Member m : added) {
      Member before = earlier.get(m);
      if (before == null) {
        health.admit(m);
      } else {
        health.admit(m, before);
        if (before.oldCopies().hasOverflowed()) {
          LOG.warn(
              "server {} is added back: more keys it held were written elsewhere since it left than"
                  + " this client could remember ({}, journal-capacity); it may serve values older than"
                  + " those for the others: flush it, or restart it empty, before adding it back",
              m.node.name(),
              health.options().journalCapacity());
        }
      }
      pings.add(
          m.connection
              .ping()
              .orTimeout(Math.max(waitNanos, requestTimeout.toNanos()), TimeUnit.NANOSECONDS)
              .handle(
                  (rtt, failure) -> {
                    if (failure != null) {
                      health.startEjected(m, Failures.unwrap(failure));
                    }
                    return null;
                  }));
    }
    return CompletableFuture.allOf(pings.toArray(new CompletableFuture<?>[0]));
  }
}
