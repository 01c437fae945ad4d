package io.shardwise.it.failure;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.shardwise.redis.RedisBackend;
import io.shardwise.spi.Backend;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisFailureIT extends FailbackScenarios {

  /** Persistent: a killed server restarts with its data, the failback hazard as it happens. */
  @RegisterExtension
  static final ServerFleet<RedisServer> FLEET = ServerFleet.redisBuilder().servers(5).persistent().build();

  @Override
  ServerFleet<RedisServer> fleet() {
    return FLEET;
  }

  @Override
  Backend newBackend() {
    return RedisBackend.create();
  }

  @Override
  String backendName() {
    return "redis";
  }

  @Override
  void takeDownHoldingData(ServerHandle server) {
    server.kill();
  }

  @Override
  void bringBack(ServerHandle server) {
    server.restart(); // reloads its append-only file: it still holds what it held
  }

  @Override
  String rawGet(ServerHandle server, String key) {
    byte[] v = ((RedisServer) server).get(key);
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  /** An application on plain Lettuce, one connection per server, key i on server i mod 5. */
  @Override
  OtherWriter otherWriter() {
    RedisClient lettuce = RedisClient.create();
    List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    for (RedisServer s : FLEET.servers()) {
      connections.add(lettuce.connect(RedisURI.create(s.host(), s.port())));
    }
    return new OtherWriter() {
      @Override
      public void write(int keys) {
        List<Map<String, String>> perServer = new ArrayList<>();
        connections.forEach(c -> perServer.add(new LinkedHashMap<>()));
        for (int i = 0; i < keys; i++) {
          perServer.get(i % connections.size()).put("app2:" + i, "value of app2:" + i);
        }
        for (int s = 0; s < connections.size(); s++) {
          connections.get(s).sync().mset(perServer.get(s));
        }
      }

      @Override
      public List<String> missing(int keys) {
        List<String> missing = new ArrayList<>();
        for (int s = 0; s < connections.size(); s++) {
          List<String> mine = new ArrayList<>();
          for (int i = s; i < keys; i += connections.size()) {
            mine.add("app2:" + i);
          }
          for (var kv : connections.get(s).sync().mget(mine.toArray(new String[0]))) {
            if (!kv.hasValue() || !kv.getValue().equals("value of " + kv.getKey())) {
              missing.add(kv.getKey() + "=" + (kv.hasValue() ? kv.getValue() : null));
            }
          }
        }
        return missing;
      }

      @Override
      public void close() {
        connections.forEach(StatefulRedisConnection::close);
        lettuce.shutdown();
      }
    };
  }

  @Override
  Map<String, Long> lossCounters(ServerHandle server) {
    RedisServer redis = (RedisServer) server;
    Map<String, String> stats = redis.info("stats");
    Map<String, Long> counters = new java.util.TreeMap<>();
    for (String name : List.of("evicted_keys", "expired_keys")) {
      counters.put(name, Long.parseLong(stats.getOrDefault(name, "0")));
    }
    Map<String, String> commands = redis.info("commandstats");
    counters.put("del calls", calls(commands.get("cmdstat_del")));
    counters.put("unlink calls", calls(commands.get("cmdstat_unlink")));
    counters.put("flush calls", flushCommands(server));
    return counters;
  }

  @Override
  long flushCommands(ServerHandle server) {
    Map<String, String> stats = ((RedisServer) server).info("commandstats");
    return calls(stats.get("cmdstat_flushdb")) + calls(stats.get("cmdstat_flushall"));
  }

  private static long calls(String stat) {
    if (stat == null) {
      return 0;
    }
    int at = stat.indexOf("calls=");
    int end = stat.indexOf(',', at);
    return Long.parseLong(stat.substring(at + "calls=".length(), end < 0 ? stat.length() : end));
  }
}
