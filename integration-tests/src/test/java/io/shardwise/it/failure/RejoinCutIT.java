package io.shardwise.it.failure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeState;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.it.TcpRelay;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.routing.Node;
import io.shardwise.testing.MemcachedItem;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A memcached server whose rejoin loses its connection halfway through the first batch of deletes:
 * the server deleted part of the keys written elsewhere while it was out, answered those, and never
 * saw the rest. Each key counts as deleted only when its own delete was answered: the others stay
 * journaled and are deleted before the server serves again, so that no read returns the older value
 * the server still held.
 */
class RejoinCutIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  private static final int KEYS = 3000;
  /** Deletes that reach the server before the cut: fewer than its journaled keys (about 1,000). */
  private static final int PASSED = 300;

  private final List<Throwable> rejoinFailures = new CopyOnWriteArrayList<>();
  private TcpRelay relay;
  private AsyncCacheClient<String> client;

  @BeforeEach
  void start() {
    FLEET.restoreAll();
    FLEET.flushAll();
    relay = new TcpRelay(FLEET.server(1).host(), FLEET.server(1).port());
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    relay.close();
  }

  @Test
  void keysWhoseDeleteWasCutOffStayJournaledAndAreDeletedBeforeTheServerServes() throws Exception {
    client =
        ShardwiseClient.builder()
            .backend(MemcachedBackend.create())
            .servers("a=" + FLEET.server(0).address() + ",b=" + relay.address() + ",c=" + FLEET.server(2).address())
            .router(RouterSpec.of("hrw"))
            .timeout(Duration.ofMillis(250))
            .failover(FailoverOptions.builder().build())
            .metrics(
                new ClientMetrics() {
                  @Override
                  public void rejoinFailed(Node node, Throwable cause) {
                    rejoinFailures.add(cause);
                  }
                })
            .codec(Codecs.utf8())
            .build();
    CacheClient<String> sync = client.sync();
    Node b = client.nodes().get(1);
    List<String> onB = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      String key = "cut:" + i;
      sync.set(key, key + "|1", Duration.ZERO);
      if (client.nodeFor(key).equals(b)) {
        onB.add(key);
      }
    }
    assertThat(onB.size()).as("b's keys, more than pass before the cut").isGreaterThan(2 * PASSED);

    relay.refuse(); // b's port refuses: b is ejected on its next reads
    long deadline = System.nanoTime() + 30_000_000_000L;
    for (int i = 0; client.nodeStates().get(b) == NodeState.HEALTHY; i++) {
      assertThat(System.nanoTime()).as("b ejected within 30 s").isLessThan(deadline);
      try {
        sync.get(onB.get(i % onB.size()));
      } catch (RuntimeException e) {
        // the failures that eject it
      }
    }
    for (String key : onB) {
      sync.set(key, key + "|2", Duration.ZERO); // elsewhere, journaled against b
    }
    for (String key : onB) {
      assertThat(FLEET.server(1).get(key)).as("b still holds the older value of %s", key).isNotNull();
    }

    // b answers again, but its connection is lost after the first PASSED deletes of the rejoin.
    relay.cutAfter("delete ", PASSED, "DELETED", "NOT_FOUND");
    relay.accept();
    awaitHealthy(b, Duration.ofSeconds(60));

    assertThat(relay.cuts()).as("the rejoin's batch was cut").isEqualTo(1);
    assertThat(rejoinFailures).as("the rejoin that found deletes unconfirmed kept b out").isNotEmpty();
    int older = 0;
    List<String> examples = new ArrayList<>();
    for (String key : onB) {
      MemcachedItem held = FLEET.server(1).get(key);
      if (held != null && held.valueUtf8().endsWith("|1")) {
        older++;
        if (examples.size() < 5) {
          examples.add(key);
        }
      }
    }
    assertThat(older).as("older values b held when it turned healthy, e.g. %s", examples).isZero();
    int read = 0;
    for (String key : onB) {
      String value = sync.get(key);
      assertThat(value).as("read of %s after the readmission", key).isNotEqualTo(key + "|1");
      read++;
    }
    assertThat(read).isEqualTo(onB.size());
  }

  private void awaitHealthy(Node node, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (client.nodeStates().get(node) != NodeState.HEALTHY) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(node + " not readmitted within " + within + ": " + client.nodeStatus().get(node));
      }
      Thread.sleep(20);
    }
  }
}
