package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RecordingLogs;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What one dead node of 100 costs in log lines while the other 99 serve requests and the dead one
 * is probed the way the client's fleet health probes an ejected node (200 ms, doubling to 2 s):
 * one line when the connection is lost, none per reconnection attempt or per request.
 *
 * <p>Runs {@value #DEFAULT_SECONDS} s; {@code -Dshardwise.dead-node-log.seconds=60} for the
 * figure in docs/benchmarks.md.
 */
@Timeout(180)
class DeadNodeLogVolumeIT {

  static final int SERVERS = 100;
  static final int DEFAULT_SECONDS = 15;

  /** A handful: the loss, and room for a stray line from a slow machine. */
  static final int MAX_LINES = 5;

  @RegisterExtension
  static final ServerFleet<MemcachedServer> FLEET =
      ServerFleet.memcachedBuilder().servers(SERVERS).memoryMegabytes(8).build();

  @Test
  void aDeadNodeCostsAHandfulOfLogLinesNotOnePerAttemptOrRequest() throws Exception {
    long seconds = Long.getLong("shardwise.dead-node-log.seconds", DEFAULT_SECONDS);
    try (MemcachedBackend backend =
        MemcachedBackend.create(
            MemcachedOptions.builder().operationTimeout(Duration.ofSeconds(2)).build())) {
      List<NodeConnection> connections = new ArrayList<>();
      for (MemcachedServer server : FLEET.servers()) {
        connections.add(backend.connect(Node.of(server.host(), server.port())));
      }
      for (NodeConnection connection : connections) {
        connection.ready().get(10, TimeUnit.SECONDS);
        connection.ping().get(10, TimeUnit.SECONDS);
      }
      RecordingLogs.clear();

      FLEET.server(0).kill();
      NodeConnection dead = connections.get(0);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      long probeDelay = 200;
      long nextProbe = System.nanoTime();
      int requests = 0;
      int probes = 0;
      while (System.nanoTime() < end) {
        List<CompletableFuture<?>> round = new ArrayList<>();
        for (int i = 1; i < SERVERS; i++) {
          round.add(connections.get(i).get("k" + i));
        }
        // Requests to the dead node too, as a client does until it ejects the node.
        if (requests < 1000) {
          round.add(dead.get("k0").exceptionally(e -> null));
        }
        if (System.nanoTime() >= nextProbe) {
          round.add(dead.ping().exceptionally(e -> null));
          probes++;
          nextProbe = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(probeDelay);
          probeDelay = Math.min(probeDelay * 2, 2000);
        }
        CompletableFuture.allOf(round.toArray(new CompletableFuture<?>[0]))
            .get(10, TimeUnit.SECONDS);
        requests += round.size();
        Thread.sleep(20);
      }

      List<RecordingLogs.Event> lines = RecordingLogs.all();
      System.out.printf(
          "one dead memcached node of %d for %d s: %d log lines (%d requests, %d probes): %s%n",
          SERVERS, seconds, lines.size(), requests, probes, lines);
      assertThat(lines).as("log lines in %d s", seconds).hasSizeLessThanOrEqualTo(MAX_LINES);
      assertThat(lines).as("the loss is logged").isNotEmpty();
    } finally {
      FLEET.restoreAll();
    }
  }
}
