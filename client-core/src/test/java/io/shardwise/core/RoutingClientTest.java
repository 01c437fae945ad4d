package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeTimeoutException;
import io.shardwise.client.ValueCodec;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.spi.KeyRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RoutingClientTest {

  private final InMemoryBackend backend = new InMemoryBackend(KeyRules.MEMCACHED);
  private final AsyncCacheClient<String> client =
      ShardwiseClient.builder()
          .backend(backend)
          .servers("a:1,b:2,c:3,d:4,e:5")
          .router(RouterSpec.of("ketama"))
          .timeout(Duration.ofMillis(100))
          .codec(Codecs.utf8())
          .build();
  private final CacheClient<String> sync = client.sync();

  @AfterEach
  void close() {
    client.close();
  }

  @Test
  void storesEachKeyOnTheNodeTheRouterNames() {
    for (int i = 0; i < 1000; i++) {
      sync.set("k" + i, "v" + i, Duration.ZERO);
    }
    for (int i = 0; i < 1000; i++) {
      String key = "k" + i;
      Node node = client.nodeFor(key);
      for (Node other : client.nodes()) {
        assertThat(backend.store(other).data.containsKey(key)).isEqualTo(other.equals(node));
      }
      assertThat(sync.get(key)).isEqualTo("v" + i);
    }
    assertThat(sync.get("absent")).isNull();
  }

  @Test
  void hashTagsKeepRelatedKeysTogether() {
    AsyncCacheClient<String> tagged =
        ShardwiseClient.builder()
            .backend(new InMemoryBackend(KeyRules.MEMCACHED))
            .servers("a:1,b:2,c:3,d:4,e:5")
            .hashTag(HashTag.of("{}"))
            .codec(Codecs.utf8())
            .build();
    for (int i = 0; i < 100; i++) {
      assertThat(tagged.nodeFor("{user:" + i + "}:profile")).isEqualTo(tagged.nodeFor("{user:" + i + "}:cart"));
    }
    tagged.close();
  }

  @Test
  void getMultiSendsOneBatchPerNodeAndAccountsForEveryKey() {
    Map<String, String> values = new HashMap<>();
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      keys.add("key:" + i);
      if (i % 3 == 0) {
        values.put("key:" + i, "value:" + i);
      }
    }
    MultiResult<Boolean> stored = sync.setMulti(values, Duration.ZERO);
    assertThat(stored.values()).hasSize(values.size()).doesNotContainValue(false);
    keys.add("key:0"); // duplicates count once

    MultiResult<String> result = sync.getMulti(keys);
    assertThat(result.keyCount()).isEqualTo(1000);
    assertThat(result.values()).isEqualTo(values);
    assertThat(result.misses()).hasSize(1000 - values.size());
    assertThat(result.errors()).isEmpty();
    for (Node node : client.nodes()) {
      assertThat(backend.store(node).multiGets.get()).as(node.name()).isEqualTo(1);
    }
  }

  @Test
  void getMultiKeepsTheCallersKeyOrderSyncAndAsync() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      keys.add("order:" + ((i * 7919) % 300));
      if (i % 4 != 0) {
        sync.set("order:" + i, "v" + i, Duration.ZERO);
      }
    }
    MultiResult<String> viaSync = sync.getMulti(keys);
    MultiResult<String> viaAsync = client.getMulti(keys).join();
    List<String> hitsInOrder = keys.stream().filter(k -> Integer.parseInt(k.substring(6)) % 4 != 0).toList();
    List<String> missesInOrder = keys.stream().filter(k -> Integer.parseInt(k.substring(6)) % 4 == 0).toList();
    for (MultiResult<String> r : List.of(viaSync, viaAsync)) {
      assertThat(r.values().keySet()).containsExactlyElementsOf(hitsInOrder);
      assertThat(r.misses()).containsExactlyElementsOf(missesInOrder);
      assertThat(r.get("order:1")).isEqualTo("v1");
    }
    assertThat(viaAsync).isEqualTo(viaSync);
  }

  @Test
  void aValueThatCannotBeDecodedIsThatKeysErrorOnly() {
    ValueCodec<String> utf8 = Codecs.utf8();
    ValueCodec<String> picky =
        new ValueCodec<>() {
          @Override
          public String name() {
            return "picky";
          }

          @Override
          public CachedValue encode(String value) {
            return utf8.encode(value);
          }

          @Override
          public String decode(CachedValue stored) {
            String s = utf8.decode(stored);
            if (s.equals("poison")) {
              throw new IllegalStateException("cannot decode poison");
            }
            return s;
          }
        };
    AsyncCacheClient<String> pickyClient =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .codec(picky)
            .build();
    try {
      pickyClient.sync().set("bad", "poison", Duration.ZERO);
      pickyClient.sync().set("good", "fine", Duration.ZERO);
      for (MultiResult<String> r :
          List.of(
              pickyClient.sync().getMulti(List.of("good", "bad", "none")),
              pickyClient.getMulti(List.of("good", "bad", "none")).join())) {
        assertThat(r.values()).containsExactly(Map.entry("good", "fine"));
        assertThat(r.misses()).containsExactly("none");
        assertThat(r.errors()).containsOnlyKeys("bad");
        assertThat(r.errors().get("bad")).hasMessageContaining("cannot decode poison");
      }
    } finally {
      pickyClient.close();
    }
  }

  @Test
  void aFailingNodeMakesItsKeysErrorsAndTheOthersStillAnswer() {
    for (int i = 0; i < 200; i++) {
      sync.set("k" + i, "v", Duration.ZERO);
    }
    Node bad = client.nodes().get(2);
    backend.store(bad).failWith = new IllegalStateException("connection refused");
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      keys.add("k" + i);
    }
    MultiResult<String> result = sync.getMulti(keys);
    assertThat(result.keyCount()).isEqualTo(200);
    assertThat(result.errors()).isNotEmpty();
    result.errors().forEach((key, error) -> {
      assertThat(client.nodeFor(key)).isEqualTo(bad);
      assertThat(error).isInstanceOf(NodeException.class).hasMessage("c:3: connection refused");
    });
    assertThat(result.values().size() + result.errors().size()).isEqualTo(200);
    assertThatThrownBy(result::valuesOrThrow).hasMessageStartingWith(result.errors().size() + " of 200 keys failed");
  }

  @Test
  void aHungNodeCostsTheTimeoutAndNamesTheNode() {
    String key = "hang-me";
    Node node = client.nodeFor(key);
    backend.store(node).hang = true;
    long start = System.nanoTime();
    assertThatThrownBy(() -> sync.get(key))
        .isInstanceOf(NodeTimeoutException.class)
        .hasMessage(node.name() + ": no reply within 100 ms");
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(tookMs).isBetween(90L, 1000L);
  }

  @Test
  void badKeysAndValuesFailBeforeAnyIo() {
    int before = totalRequests();
    assertThatThrownBy(() -> client.get("has space"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("memcached keys must not contain a space, CR, LF or NUL (text protocol); got a space at index 3: has space");
    assertThatThrownBy(() -> client.set("k".repeat(251), "v", Duration.ZERO))
        .hasMessageStartingWith("memcached keys are at most 250 bytes; got 251: kkkkk");
    assertThatThrownBy(() -> client.set("big", "x".repeat(1025), Duration.ZERO))
        .hasMessage("values are at most 1024 bytes after encoding; got 1025 for big");
    assertThatThrownBy(() -> client.set("ttl", "v", Duration.ofSeconds(-1)))
        .hasMessage("ttl must be >= 0 but was PT-1S");
    assertThatThrownBy(() -> client.incr("c", -1, 0, Duration.ZERO)).hasMessage("delta must be >= 0 but was -1");
    assertThatThrownBy(() -> client.set("n", null, Duration.ZERO)).hasMessageStartingWith("values must not be null");
    // One bad entry stops the whole batch before anything is written.
    Map<String, String> batch = new HashMap<>();
    batch.put("good", "v");
    batch.put("bad key", "v");
    assertThatThrownBy(() -> client.setMulti(batch, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    assertThat(totalRequests()).isEqualTo(before);
    assertThat(sync.get("good")).isNull();
  }

  @Test
  void countersAddAndTheSyncViewMirrorsTheAsyncOne() {
    assertThat(sync.incr("c", 5, 10, Duration.ZERO)).isEqualTo(10);
    assertThat(sync.incr("c", 5, 10, Duration.ZERO)).isEqualTo(15);
    assertThat(sync.decr("c", 3, 10, Duration.ZERO)).isEqualTo(12);
    assertThat(sync.add("c", "x", Duration.ZERO)).isFalse();
    assertThat(sync.delete("c")).isTrue();
    assertThat(sync.delete("c")).isFalse();
    assertThat(sync.async()).isSameAs(client);
    assertThat(client.pingAll()).hasSize(5);
  }

  @Test
  void redisRefusesAFlagsCodecAtBuildTime() {
    assertThatThrownBy(
            () -> ShardwiseClient.builder()
                .backend(new InMemoryBackend(KeyRules.REDIS))
                .servers("a:1")
                .codec(Codecs.spymemcached())
                .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs the flags memcached stores");
  }

  @Test
  void closeClosesEveryConnectionAndTheBackend() {
    client.close();
    assertThat(backend.closed).isTrue();
    client.nodes().forEach(n -> assertThat(backend.store(n).closed).isTrue());
    assertThatThrownBy(() -> client.get("k")).isInstanceOf(IllegalStateException.class).hasMessageEndingWith("is closed");
  }

  private int totalRequests() {
    return backend.stores.values().stream().mapToInt(s -> s.requests.get()).sum();
  }
}
