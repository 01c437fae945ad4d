package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import io.shardwise.spi.KeyRules;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bounded loads turned on, off and retuned while the client serves ({@code updatePlacement} with
 * {@code shardwise.bounded.*}), over in-memory servers that keep every copy (no TTL) and an
 * injected clock: the registry of spilled copies is carried over, so a write deletes the copies
 * made under the earlier bounded state, and none of them is read later.
 */
class BoundedChangeTest {

  private final InMemoryBackend backend = new InMemoryBackend(KeyRules.MEMCACHED);
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private AsyncCacheClient<String> client;
  private CacheClient<String> sync;

  private void build(BoundedOptions.Builder bounded) {
    client =
        new ClientBuilder<>(Codecs.utf8())
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4")
            .bounded(bounded.build())
            .timeout(Duration.ofMillis(100))
            .topology(TopologyOptions.defaults().withSettle(Duration.ZERO).withWarmUp(Duration.ZERO))
            .nanoClock(clock::get)
            .build();
    sync = client.sync();
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
  }

  private static BoundedOptions.Builder everyKey() {
    return BoundedOptions.builder().enabled(true).epsilon(0.25).scope(BoundedOptions.Scope.ALL);
  }

  private TopologyChange update(String... keysAndValues) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      settings.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return client.updatePlacement(settings).join();
  }

  /** Reads {@code key} until its reads have spilled and left copies on other servers. */
  private long spillCopies(String key) {
    for (int i = 0; i < 400; i++) {
      sync.get(key);
    }
    long copies = copiesOf(key);
    assertThat(copies).as("copies left where reads of %s spilled", key).isPositive();
    return copies;
  }

  private long copiesOf(String key) {
    Node owner = client.nodeFor(key);
    return client.nodes().stream()
        .filter(n -> !n.equals(owner) && backend.store(n).data.containsKey(key))
        .count();
  }

  private RoutingClient<String> routing() {
    return (RoutingClient<String>) client;
  }

  @Test
  void aWriteWhileBoundedLoadsAreOffDeletesTheCopiesSpilledBeforeSoNoneIsReadOnceTheyAreBackOn() {
    build(everyKey());
    sync.set("k", "v1", Duration.ZERO);
    spillCopies("k");

    TopologyChange off = update("shardwise.bounded.enabled", "false");

    assertThat(off.movedShare()).isZero();
    assertThat(off.placementChanged()).isFalse();
    assertThat(client.loadReport().enabled()).isFalse();
    sync.set("k", "v2", Duration.ZERO);
    assertThat(copiesOf("k")).as("copies of v1 left after a write made while bounded loads were off").isZero();
    update("shardwise.bounded.enabled", "true");
    assertThat(client.loadReport().enabled()).isTrue();
    for (int i = 0; i < 400; i++) {
      assertThat(sync.get("k")).isEqualTo("v2");
    }
  }

  @Test
  void aChangeOfEpsilonKeepsTheRegistrySoAWriteDeletesTheCopiesMadeBefore() {
    build(everyKey());
    sync.set("k", "v1", Duration.ZERO);
    spillCopies("k");

    update("shardwise.bounded.epsilon", "0.5", "shardwise.bounded.probe-limit", "3");

    sync.set("k", "v2", Duration.ZERO);
    assertThat(copiesOf("k")).isZero();
    for (int i = 0; i < 400; i++) {
      assertThat(sync.get("k")).isEqualTo("v2");
    }
  }

  @Test
  void aChangeOfRouterAndBoundedOptionsTogetherKeepsTheRegistry() {
    build(everyKey());
    sync.set("k", "v1", Duration.ZERO);
    spillCopies("k");

    TopologyChange change = update("shardwise.router", "hrw", "shardwise.bounded.epsilon", "0.1");
    assertThat(change.placementAfter()).isEqualTo("hrw");

    sync.set("k", "v2", Duration.ZERO);
    for (int i = 0; i < 400; i++) {
      assertThat(sync.get("k")).isEqualTo("v2");
    }
  }

  @Test
  void theRegistryOfCopiesIsKeptWhileOffUntilTheirSpillTtlHasPassed() throws Exception {
    build(everyKey().spillTtl(Duration.ofSeconds(1)));
    sync.set("k", "v1", Duration.ZERO);
    spillCopies("k");

    update("shardwise.bounded.enabled", "false");
    Thread.sleep(2500); // two checks (spill TTL + timeout apart) with the copies' TTL not passed
    assertThat(routing().topology().bounded).as("the copy registry, kept").isNotNull();
    assertThat(routing().topology().bounded.spills()).isFalse();

    clock.addAndGet(Duration.ofSeconds(2).toNanos()); // every copy has expired now
    until(() -> routing().topology().bounded == null);
    update("shardwise.bounded.enabled", "true");
    assertThat(client.loadReport().enabled()).isTrue();
  }

  @Test
  void keysNotNamedKeepTheirValuesAndTheSketchAndRegistrySizesAreKept() {
    build(everyKey().epsilon(0.3).probeLimit(5).maxSpilledKeys(7));
    update("shardwise.bounded.enabled", "false");
    update("shardwise.bounded.enabled", "true");
    BoundedOptions now = routing().topology().bounded.options;
    assertThat(now.epsilon()).isEqualTo(0.3);
    assertThat(now.probeLimit()).isEqualTo(5);
    assertThat(now.scope()).isEqualTo(BoundedOptions.Scope.ALL);
    assertThat(now.maxSpilledKeys()).isEqualTo(7);
  }

  @Test
  void aBadBoundedValueIsRefusedNamingTheKeyAndTheRuleAndTheOldStateServesOn() {
    build(everyKey());
    Map<List<String>, String> refused = new LinkedHashMap<>();
    refused.put(List.of("shardwise.bounded.epsilon", "-0.1"), "shardwise.bounded.epsilon: must be > 0 but was -0.1");
    refused.put(List.of("shardwise.bounded.enabled", "yes"), "shardwise.bounded.enabled:");
    refused.put(List.of("shardwise.bounded.scope", "warm"), "shardwise.bounded.scope:");
    refused.put(List.of("shardwise.bounded.resolution", "300ms"), "shardwise.bounded.window: must be a whole multiple");
    refused.put(List.of("shardwise.bounded.spill-ttl", "10ms"), "shardwise.bounded.spill-ttl:");
    refused.put(List.of("shardwise.bounded.epsilonn", "0.3"), "unknown key shardwise.bounded.epsilonn");
    refused.forEach(
        (bad, message) ->
            assertThatThrownBy(() -> client.updatePlacement(Map.of(bad.get(0), bad.get(1))).join())
                .as("%s", bad)
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(IllegalArgumentException.class)
                .cause()
                .hasMessageContaining("placement change refused, the placement in force stays")
                .hasMessageContaining(message));
    assertThat(routing().topology().bounded.options.epsilon()).isEqualTo(0.25);
    assertThat(client.loadReport().enabled()).isTrue();
  }

  @Test
  void withReplicasABoundedChangeApplies() {
    client =
        new ClientBuilder<>(Codecs.utf8())
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4")
            .replicas(2)
            .bounded(everyKey().build())
            .nanoClock(clock::get)
            .build();
    client.sync().set("k", "v", Duration.ZERO);
    TopologyChange change = update("shardwise.bounded.epsilon", "0.5");
    assertThat(change.movedShare()).as("a bounded-load change moves no key").isZero();
    assertThat(client.sync().get("k")).isEqualTo("v");
  }

  private static void until(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.sleep(10);
    }
  }
}
