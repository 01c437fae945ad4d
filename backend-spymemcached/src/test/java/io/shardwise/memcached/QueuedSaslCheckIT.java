package io.shardwise.memcached;

import static io.shardwise.memcached.Futures.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A new connection's SASL check is a probe on a thread of the backend's two; a check queued
 * behind others, or slow because this process is starved, must not make requests to a server that
 * answers fail as not connected: such a failure counts against the server, and a few of them eject
 * it. Four stopped servers (SIGSTOP: the kernel still accepts connections, nobody answers) hold
 * both probe threads for two rounds of the probe timeout, so the check of the one server that
 * answers starts after its {@link SpymemcachedNodeConnection#ready()} has completed at the connect
 * timeout.
 */
class QueuedSaslCheckIT {

  private static final Duration TIMEOUT = Duration.ofMillis(500);

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(5);

  private MemcachedBackend backend;

  @AfterEach
  void close() {
    if (backend != null) {
      backend.close();
    }
    FLEET.restoreAll();
  }

  @Test
  void aRequestWaitsForTheSaslCheckOfItsConnectionInsteadOfFailing() {
    for (int i = 0; i < 4; i++) {
      FLEET.server(i).pause();
    }
    backend =
        MemcachedBackend.create(
            MemcachedOptions.builder().connectTimeout(TIMEOUT).operationTimeout(TIMEOUT).build());
    for (int i = 0; i < 4; i++) {
      backend.connect(Node.of(FLEET.server(i).host(), FLEET.server(i).port()));
    }
    MemcachedServer answering = FLEET.server(4);
    SpymemcachedNodeConnection connection =
        (SpymemcachedNodeConnection)
            backend.connect(Node.of(answering.host(), answering.port()));
    await(connection.ready());

    CompletableFuture<?> get = connection.get("k");
    assertThat(await(get)).as("a miss, not a failure").isNull();
    assertThat(connection.saslProbes()).as("the check had run before the request was sent").isEqualTo(1);
  }
}
