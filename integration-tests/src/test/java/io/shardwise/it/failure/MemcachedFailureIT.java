package io.shardwise.it.failure;

import io.shardwise.it.SpymemcachedClients;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.spi.Backend;
import io.shardwise.testing.MemcachedItem;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import net.spy.memcached.AddrUtil;
import net.spy.memcached.MemcachedClient;
import org.junit.jupiter.api.extension.RegisterExtension;

class MemcachedFailureIT extends FailbackScenarios {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(5);

  @Override
  ServerFleet<MemcachedServer> fleet() {
    return FLEET;
  }

  @Override
  Backend newBackend() {
    return MemcachedBackend.create();
  }

  @Override
  String backendName() {
    return "memcached";
  }

  @Override
  void takeDownHoldingData(ServerHandle server) {
    server.pause();
  }

  @Override
  void bringBack(ServerHandle server) {
    server.resume();
  }

  @Override
  String rawGet(ServerHandle server, String key) {
    MemcachedItem item = ((MemcachedServer) server).get(key);
    return item == null ? null : item.valueUtf8();
  }

  /** An application on plain spymemcached, as most memcached users on the JVM run it. */
  @Override
  OtherWriter otherWriter() {
    MemcachedClient spy;
    try {
      spy =
          SpymemcachedClients.connected(
              new MemcachedClient(AddrUtil.getAddresses(String.join(" ", FLEET.addresses()))), FLEET.size());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new OtherWriter() {
      @Override
      public void write(int keys) {
        List<Future<Boolean>> writes = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
          writes.add(spy.set("app2:" + i, 0, "value of app2:" + i));
        }
        for (Future<Boolean> w : writes) {
          try {
            if (!w.get(10, TimeUnit.SECONDS)) {
              throw new IllegalStateException("spymemcached set failed");
            }
          } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
          }
        }
      }

      @Override
      public List<String> missing(int keys) {
        List<String> missing = new ArrayList<>();
        List<String> batch = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
          batch.add("app2:" + i);
          if (batch.size() == 1000 || i == keys - 1) {
            Map<String, Object> values = spy.getBulk(batch);
            for (String key : batch) {
              if (!("value of " + key).equals(values.get(key))) {
                missing.add(key + "=" + values.get(key));
              }
            }
            batch.clear();
          }
        }
        return missing;
      }

      @Override
      public void close() {
        spy.shutdown(5, TimeUnit.SECONDS);
      }
    };
  }

  @Override
  long flushCommands(ServerHandle server) {
    return Long.parseLong(((MemcachedServer) server).stats().get("cmd_flush"));
  }

  @Override
  Map<String, Long> lossCounters(ServerHandle server) {
    Map<String, String> stats = ((MemcachedServer) server).stats();
    Map<String, Long> counters = new java.util.TreeMap<>();
    for (String name :
        List.of("curr_items", "delete_hits", "cmd_flush", "evictions", "expired_unfetched", "evicted_unfetched",
            "reclaimed", "curr_connections")) {
      counters.put(name, Long.parseLong(stats.getOrDefault(name, "0")));
    }
    return counters;
  }
}
