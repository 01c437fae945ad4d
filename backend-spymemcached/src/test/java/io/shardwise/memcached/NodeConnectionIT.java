package io.shardwise.memcached;

import static io.shardwise.memcached.Futures.await;
import static io.shardwise.memcached.Futures.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.CachedValue;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The {@link NodeConnectionContract} against a real memcached, over both protocols. */
class NodeConnectionIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(1);

  @Nested
  class TextProtocol extends NodeConnectionContract {
    @Override
    MemcachedProtocol protocol() {
      return MemcachedProtocol.TEXT;
    }

    @Override
    MemcachedServer server() {
      return FLEET.server(0);
    }

    @Test
    void flagsWithTheHighBitSetAreRejectedBeforeSending() {
      Throwable failure =
          failure(
              connection.set("high", CachedValue.of(new byte[] {1}, 0x80000000), Duration.ZERO));

      assertThat(failure)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("0x80000000")
          .hasMessageContaining("BINARY");
      assertThat(await(connection.ping())).isPositive();
      assertThat(server().get("high")).isNull();
    }
  }

  @Nested
  class BinaryProtocol extends NodeConnectionContract {
    @Override
    MemcachedProtocol protocol() {
      return MemcachedProtocol.BINARY;
    }

    @Override
    MemcachedServer server() {
      return FLEET.server(0);
    }
  }
}
