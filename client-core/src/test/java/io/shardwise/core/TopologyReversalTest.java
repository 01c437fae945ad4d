package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A change and its reversal, servers removed and added back, a new server that is out, a server
 * renamed, and changes chained within each other's warm-up, on simulated servers whose data
 * outlives the client's connections.
 */
class TopologyReversalTest {

  private static final String FIVE = "a:1,b:2,c:3,d:4,e:5";
  private static final String SIX = "a:1,b:2,c:3,d:4,e:5,f:6";
  private static final Node F = Node.of("f", 6);

  private final SimulatedFleet fleet = new SimulatedFleet();
  private final List<AsyncCacheClient<String>> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(AsyncCacheClient::close);
    fleet.close();
  }

  private AsyncCacheClient<String> client(String servers, Duration settle, Duration warmUp) {
    AsyncCacheClient<String> c =
        ShardwiseClient.builder()
            .backend(fleet)
            .servers(servers)
            .timeout(Duration.ofMillis(200))
            .topology(
                TopologyOptions.defaults()
                    .withSettle(settle)
                    .withWarmUp(warmUp)
                    .withConnectWait(Duration.ofMillis(100)))
            .codec(Codecs.utf8())
            .build();
    clients.add(c);
    return c;
  }

  private static TopologyChange update(AsyncCacheClient<String> client, String servers) {
    return client.updateServers(ServerList.parse(servers)).join();
  }

  /** Keys 0..n-1 whose node in {@code client}'s current list is {@code node}. */
  private static List<String> keysOn(AsyncCacheClient<String> client, Node node, int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < n; i++) {
      if (client.nodeFor("k" + i).equals(node)) {
        keys.add("k" + i);
      }
    }
    return keys;
  }

  private static void writeAll(AsyncCacheClient<String> client, List<String> keys, String value) {
    for (String key : keys) {
      client.sync().set(key, value, Duration.ZERO);
    }
  }

  /** Every key reads {@code value} or nothing: never an older value. */
  private static void noOldValue(AsyncCacheClient<String> client, List<String> keys, String value, String old) {
    for (String key : keys) {
      String got = client.sync().get(key);
      assertThat(got).as(key).isNotEqualTo(old);
      assertThat(got).as(key).isIn(value, null);
    }
    Map<String, String> many = client.sync().getMulti(keys).values();
    assertThat(many.values()).as("getMulti").doesNotContain(old);
  }

  @Test
  void aServerAddedAndRemovedAfterItsWarmUpLeavesNoOldValueOnTheKeysFirstServers() throws Exception {
    AsyncCacheClient<String> client = client(FIVE, Duration.ofMillis(50), Duration.ofMillis(200));
    writeAll(client, keysOnAfter(client, SIX, 100), "v1");
    update(client, SIX);
    List<String> moved = keysOn(client, F, 100);
    Thread.sleep(400); // settled and warmed up: moved keys live on f only
    writeAll(client, moved, "v2");
    update(client, FIVE);
    for (int round = 0; round < 3; round++) { // settling, warming, after
      noOldValue(client, moved, "v2", "v1");
      Thread.sleep(150);
    }
    assertThat(client.topologyStatus().phase()).isEqualTo(io.shardwise.client.TopologyStatus.Phase.STABLE);
    noOldValue(client, moved, "v2", "v1");
  }

  @Test
  void withoutSettleOrWarmUpAChangeAndItsReversalReadNoOldValueEither() throws Exception {
    AsyncCacheClient<String> client = client(FIVE, Duration.ZERO, Duration.ZERO);
    List<String> moving = keysOnAfter(client, SIX, 100);
    writeAll(client, moving, "v1");
    update(client, SIX);
    writeAll(client, moving, "v2");
    update(client, FIVE);
    noOldValue(client, moving, "v2", "v1");
  }

  @Test
  void aServerRemovedAndAddedBackServesNoValueFromBeforeItLeft() throws Exception {
    leaveAndComeBack(SIX, F, FIVE);
  }

  @Test
  void aServerReplacedAndRestoredServesNoValueFromBeforeItWasReplaced() throws Exception {
    leaveAndComeBack(FIVE, Node.of("e", 5), "a:1,b:2,c:3,d:4,h:8");
  }

  /**
   * {@code server} of {@code servers} leaves for {@code without}; once its connection is closed its
   * keys are rewritten elsewhere; then it comes back, and must not serve their earlier values.
   */
  private void leaveAndComeBack(String servers, Node server, String without) throws Exception {
    AsyncCacheClient<String> client = client(servers, Duration.ofMillis(50), Duration.ofMillis(150));
    List<String> keys = keysOn(client, server, 100);
    writeAll(client, keys, "v1");
    update(client, without);
    Thread.sleep(400); // settled, warmed up, and the server's connection closed
    writeAll(client, keys, "v2");
    update(client, servers);
    for (int round = 0; round < 3; round++) { // settling, warming, after
      noOldValue(client, keys, "v2", "v1");
      Thread.sleep(150);
    }
  }

  @Test
  void aServerOutWhenItLeftIsCleanedOfWhatWasWrittenElsewhereBeforeItServesAgain() throws Exception {
    AsyncCacheClient<String> client = client(SIX, Duration.ofMillis(50), Duration.ofMillis(150));
    List<String> onF = keysOn(client, F, 100);
    writeAll(client, onF, "v1");
    fleet.node(F).kill();
    until(() -> writeFails(client, onF) && client.nodeStates().get(F) != io.shardwise.client.NodeState.HEALTHY);
    writeAll(client, onF, "v2"); // fails over, journaled against f
    update(client, FIVE); // f leaves while out, with its journal
    Thread.sleep(400); // its connection is closed
    fleet.node(F).restart(true); // back with v1
    update(client, SIX);
    until(() -> client.nodeStates().get(F) == io.shardwise.client.NodeState.HEALTHY);
    for (int round = 0; round < 3; round++) {
      noOldValue(client, onF, "v2", "v1");
      Thread.sleep(150);
    }
  }

  /** Sets one of {@code keys}; whether that failed. */
  private static boolean writeFails(AsyncCacheClient<String> client, List<String> keys) {
    try {
      client.sync().set(keys.get(0), "v1", Duration.ZERO);
      return false;
    } catch (RuntimeException e) {
      return true;
    }
  }

  @Test
  void writesOfMovedKeysWhileTheirNewServerIsOutAreKeptWhereTheyWent() throws Exception {
    AsyncCacheClient<String> client = client(FIVE, Duration.ofMillis(50), Duration.ofSeconds(60));
    fleet.node(F).kill(); // added, but not running
    update(client, SIX);
    assertThat(client.nodeStates().get(F)).isNotEqualTo(io.shardwise.client.NodeState.HEALTHY);
    List<String> moved = keysOn(client, F, 100);
    Thread.sleep(100); // warming
    for (String key : moved) {
      client.sync().set(key, "set", Duration.ZERO);
    }
    for (String key : moved) {
      assertThat(client.sync().get(key)).as(key).isEqualTo("set");
    }
    for (String key : moved) {
      client.sync().delete(key);
      assertThat(client.sync().add(key, "added", Duration.ZERO)).as(key).isTrue();
    }
    assertThat(client.sync().getMulti(moved).values()).hasSize(moved.size()).containsOnlyKeys(moved);
    assertThat(client.sync().getMulti(moved).values().values()).containsOnly("added");
  }

  @Test
  void aNameGivenToTheSameServerMovesNothingAndLosesNoWrite() throws Exception {
    AsyncCacheClient<String> client = client("a=a:1,b=b:2,c=c:3", Duration.ofMillis(50), Duration.ofSeconds(60));
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      keys.add("k" + i);
    }
    writeAll(client, keys, "v1");
    TopologyChange change = update(client, "a=a:1,b=b:2,x=c:3");
    assertThat(change.movedShare()).isZero();
    assertThat(change.added()).isEmpty();
    assertThat(change.removed()).isEmpty();
    Thread.sleep(100);
    writeAll(client, keys, "v2");
    for (String key : keys) {
      assertThat(client.sync().get(key)).as(key).isEqualTo("v2");
    }
  }

  @Test
  void aChangeMadeWhileAnotherWarmsUpKeepsTheFirstChangesKeysWarm() throws Exception {
    AsyncCacheClient<String> client = client(FIVE, Duration.ofMillis(50), Duration.ofSeconds(60));
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      keys.add("k" + i);
    }
    writeAll(client, keys, "v");
    update(client, SIX);
    until(() -> client.topologyStatus().phase() == io.shardwise.client.TopologyStatus.Phase.WARMING);
    update(client, SIX + ",g:7"); // the keys that moved to f are not on f yet
    Thread.sleep(60); // past its settle phase
    long hits = keys.stream().filter(k -> "v".equals(client.sync().get(k))).count();
    assertThat(hits).as("hits over %d keys", keys.size()).isEqualTo(keys.size());
  }

  /** Keys 0..n-1 that {@code servers} puts on its last server. */
  private List<String> keysOnAfter(AsyncCacheClient<String> client, String servers, int n) {
    io.shardwise.routing.Router r = RouterSpec.DEFAULT.build(ServerList.parse(servers));
    Node last = r.nodes().get(r.size() - 1);
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < n; i++) {
      if (r.primaryNode("k" + i).equals(last)) {
        keys.add("k" + i);
      }
    }
    return keys;
  }

  private static void until(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + 5_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not within 5 s");
      }
      Thread.sleep(5);
    }
  }
}
