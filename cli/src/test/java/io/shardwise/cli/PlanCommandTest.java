package io.shardwise.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import io.shardwise.core.RouterSpec;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PlanCommandTest {

  /** Every router and ketama mode a user can configure, as plan labels them. */
  private static final List<String> EVERY_ROUTER =
      List.of(
          "ketama(libketama)",
          "ketama(libmemcached)",
          "ketama(twemproxy)",
          "ketama(spymemcached)",
          "ketama(spymemcached-weighted)",
          "ring(V=160)",
          "hrw",
          "jump",
          "multiprobe(K=21)",
          "maglev(M=65537)",
          "modulo");

  /** Routers that only move the keys of a node that leaves: all but jump, Maglev and modulo. */
  private static final List<String> RING_LIKE =
      EVERY_ROUTER.stream()
          .filter(r -> !List.of("jump", "maglev(M=65537)", "modulo").contains(r))
          .collect(Collectors.toList());

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    return ShardwiseCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  /** The figures of one router in plan's JSON. */
  record RouterFigures(String router, long keys, long moved, double optimum, long floor, List<String[]> flows) {}

  /** Runs plan with {@code --format json} and reads each router's figures. */
  private List<RouterFigures> plan(String... args) {
    List<String> all = new ArrayList<>(List.of("plan", "--format", "json", "--top", "100000"));
    all.addAll(List.of(args));
    int code = run(all.toArray(String[]::new));
    assertThat(err.toString()).isEmpty();
    assertThat(code).isZero();
    List<RouterFigures> figures = new ArrayList<>();
    String json = out.toString();
    String[] blocks = json.split("\"router\": ");
    for (int b = 1; b < blocks.length; b++) {
      String block = blocks[b];
      String router = block.substring(1, block.indexOf('"', 1));
      if (block.contains("\"notApplicable\"")) {
        continue;
      }
      List<String[]> flows = new ArrayList<>();
      Matcher f =
          Pattern.compile("\"from\": \"([^\"]+)\",\\s*\"to\": \"([^\"]+)\",\\s*\"keys\": (\\d+)").matcher(block);
      while (f.find()) {
        flows.add(new String[] {f.group(1), f.group(2), f.group(3)});
      }
      figures.add(
          new RouterFigures(
              router,
              number(block, "keys"),
              number(block, "moved"),
              Double.parseDouble(field(block, "optimum")),
              number(block, "floor"),
              flows));
    }
    return figures;
  }

  private static String field(String block, String name) {
    Matcher m = Pattern.compile("\"" + name + "\": ([-0-9.E]+)").matcher(block);
    assertThat(m.find()).as(name + " in " + block).isTrue();
    return m.group(1);
  }

  private static long number(String block, String name) {
    return Long.parseLong(field(block, name));
  }

  private static String servers(int from, int to) {
    return IntStream.rangeClosed(from, to).mapToObj(i -> "127.0.0." + i + ":11211").collect(Collectors.joining(","));
  }

  @Test
  void plansForEveryRouterAndKetamaModeByDefault() {
    List<RouterFigures> figures = plan("--from", servers(1, 10), "--to", servers(1, 11), "--sample", "20000");
    assertThat(figures).extracting(RouterFigures::router).containsExactlyElementsOf(EVERY_ROUTER);
    for (RouterFigures r : figures) {
      assertThat(r.keys()).as(r.router()).isEqualTo(20_000);
      assertThat(r.optimum()).as(r.router()).isCloseTo(1.0 / 11, within(1e-12));
    }
    int code = run("plan", "--from", servers(1, 10), "--to", servers(1, 11), "--sample", "20000");
    assertThat(code).isZero();
    assertThat(out.toString())
        .startsWith("Plan: 10 servers -> 11 servers: 1 added, 0 removed, 0 reweighted, 10 unchanged\n"
            + "Keys: 20,000 random key hashes (seed 1)\n"
            + "Optimum: 9.091% of the keys must move at the least")
        .contains("ketama(spymemcached-weighted)  20,000")
        .contains("127.0.0.11:11211");
  }

  @Test
  void addingOneNodeToKetamaMovesAboutOneInNPlusOneAllOfThemToTheNewNode() {
    int fleets = 20;
    double sum = 0;
    for (int t = 0; t < fleets; t++) {
      String prefix = "127.0." + (t + 1) + ".";
      String old = IntStream.rangeClosed(1, 10).mapToObj(i -> prefix + i + ":11211").collect(Collectors.joining(","));
      String added = prefix + "11:11211";
      RouterFigures r =
          plan("--from", old, "--to", old + "," + added, "--router", "ketama", "--compat", "libketama",
                  "--sample", "10000", "--seed", Integer.toString(t))
              .get(0);
      assertThat(r.floor()).isEqualTo(r.moved());
      assertThat(r.flows()).allSatisfy(flow -> assertThat(flow[1]).isEqualTo(added));
      sum += (double) r.moved() / r.keys();
    }
    // A ketama node's share varies by about 1/sqrt(160) = 8% from ring to ring; 20 rings: 1.8%.
    assertThat(sum / fleets).isCloseTo(1.0 / 11, within(0.1 / 11));
  }

  @Test
  void addingOneNodeToHrwAndJumpMovesOneInNPlusOneWithinSamplingError() {
    for (String router : new String[] {"hrw", "jump"}) {
      RouterFigures r =
          plan("--from", servers(1, 10), "--to", servers(1, 11), "--router", router, "--sample", "200000").get(0);
      // Binomial: sigma = sqrt(p (1 - p) / N) = 0.00064 for p = 1/11 and N = 200,000.
      assertThat((double) r.moved() / r.keys()).as(router).isCloseTo(1.0 / 11, within(0.0032));
      assertThat(r.floor()).as(router).isEqualTo(r.moved());
    }
  }

  @Test
  void moduloMovesExactlyTheKeysWhoseRemainderChanges() {
    int sample = 100_000;
    long seed = 42;
    RouterFigures r =
        plan("--from", servers(1, 10), "--to", servers(1, 11), "--router", "modulo",
                "--sample", Integer.toString(sample), "--seed", Long.toString(seed))
            .get(0);
    SplittableRandom random = new SplittableRandom(seed);
    long expected = 0;
    for (int k = 0; k < sample; k++) {
      long h = random.nextLong();
      if (Long.remainderUnsigned(h, 10) != Long.remainderUnsigned(h, 11)) {
        expected++;
      }
    }
    assertThat(r.moved()).isEqualTo(expected);
    assertThat((double) r.moved() / sample).isCloseTo(10.0 / 11, within(0.005));
  }

  @Test
  void removingANodeMovesExactlyThatNodesKeysForRingRouters() {
    String old = servers(1, 10);
    String shrunk = servers(1, 3) + "," + servers(5, 10);
    List<RouterFigures> figures = plan("--from", old, "--to", shrunk, "--sample", "50000");
    for (RouterFigures r : figures) {
      assertThat(r.optimum()).as(r.router()).isCloseTo(0.1, within(1e-12));
      if (RING_LIKE.contains(r.router())) {
        assertThat(r.moved()).as(r.router()).isPositive().isEqualTo(r.floor());
        assertThat(r.flows()).as(r.router()).allSatisfy(flow -> assertThat(flow[0]).isEqualTo("127.0.0.4:11211"));
      } else {
        // Maglev moves a little more than the minimum, jump and modulo renumber their buckets.
        assertThat(r.moved()).as(r.router()).isGreaterThan(r.floor());
      }
    }
    // Jump loses only its last bucket without moving other keys.
    RouterFigures jump = plan("--from", old, "--to", servers(1, 9), "--router", "jump", "--sample", "50000").get(0);
    assertThat(jump.moved()).isEqualTo(jump.floor());
    assertThat(jump.flows()).allSatisfy(flow -> assertThat(flow[0]).isEqualTo("127.0.0.10:11211"));
  }

  @Test
  void replacingANamedNodeMovesOnlyItsKeysToTheNewServerWhenRoutersHashTheName() {
    String old = "a=127.0.0.1:11211,b=127.0.0.2:11211,c=127.0.0.3:11211,d=127.0.0.4:11211";
    String replaced = "a=127.0.0.1:11211,b=127.0.0.2:11211,c=127.0.0.99:11211,d=127.0.0.4:11211";
    List<RouterFigures> figures = plan("--from", old, "--to", replaced, "--sample", "50000");
    assertThat(figures).hasSize(EVERY_ROUTER.size());
    for (RouterFigures r : figures) {
      assertThat(r.optimum()).isCloseTo(0.25, within(1e-12));
      if (List.of("ketama(libketama)", "ketama(libmemcached)", "ketama(spymemcached)",
              "ketama(spymemcached-weighted)").contains(r.router())) {
        // These modes hash the address, so the new server takes a new place on the ring.
        assertThat(r.moved()).as(r.router()).isGreaterThan(r.keys() / 4 + r.keys() / 20);
      } else {
        assertThat(r.flows()).as(r.router()).hasSize(1);
        assertThat(r.flows().get(0)).as(r.router()).containsExactly("c=127.0.0.3:11211", "c=127.0.0.99:11211",
            Long.toString(r.moved()));
        assertThat((double) r.moved() / r.keys()).as(r.router()).isCloseTo(0.25, within(0.05));
      }
    }
  }

  @Test
  void replacingAnUnnamedNodeMovesAboutTwiceTheOptimumForHrw() {
    String replaced = servers(1, 4) + ",127.0.0.99:11211," + servers(6, 10);
    RouterFigures r =
        plan("--from", servers(1, 10), "--to", replaced, "--router", "hrw", "--sample", "200000").get(0);
    // The old owner or the new server is the top scorer of the 11: 2/11 of the keys move.
    assertThat((double) r.moved() / r.keys()).isCloseTo(2.0 / 11, within(0.004));
    assertThat(r.optimum()).isCloseTo(0.1, within(1e-12));
  }

  @Test
  void weightedListsUseTheTotalVariationDistanceAndSkipRoutersWithoutWeights() throws IOException {
    Path before = Files.writeString(dir.resolve("before"), "127.0.0.1:11211\n127.0.0.2:11211 # two\nc=127.0.0.3:11211:2\n");
    List<RouterFigures> figures =
        plan("--from", "@" + before, "--to", "127.0.0.1:11211,127.0.0.2:11211:2,c=127.0.0.3:11211:2", "--sample", "10000");
    // Shares 1/4, 1/4, 1/2 -> 1/5, 2/5, 2/5: 0.05 + 0.1 leave the first and the third server.
    assertThat(figures).extracting(RouterFigures::router)
        .doesNotContain("jump", "multiprobe(K=21)", "modulo").contains("hrw", "maglev(M=65537)");
    assertThat(figures).allSatisfy(r -> assertThat(r.optimum()).isCloseTo(0.15, within(1e-12)));
    assertThat(out.toString()).contains("\"router\": \"jump\",\n      \"notApplicable\": \"jump supports no weights");
  }

  /** 3,000 keys, a third of them with a hash tag that ten keys share. */
  private static List<String> someTaggedKeys() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      keys.add(i % 3 == 0 ? "{user:" + i / 30 + "}:item" + i : "key-" + i);
    }
    return keys;
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "{}"})
  void aKeysFileMovesWhatLocateSays(String hashTag) throws IOException {
    List<String> keys = someTaggedKeys();
    Path keysFile = Files.write(dir.resolve("keys"), keys, StandardCharsets.UTF_8);
    String old = servers(1, 5);
    String next = servers(1, 6);
    for (String router : new String[] {"ketama", "maglev", "modulo"}) {
      RouterFigures r =
          plan("--from", old, "--to", next, "--router", router, "--compat", "twemproxy",
                  "--keys-file", keysFile.toString(), "--hash-tag", hashTag)
              .get(0);
      assertThat(r.keys()).isEqualTo(3000);
      assertThat(r.moved()).as(router).isEqualTo(movedByLocate(router, old, next, keys, hashTag));
    }
    assertThat(out.toString()).contains("\"sample\": \"3,000 keys from " + keysFile);
  }

  /** The keys whose server differs, routed key by key as the client does. */
  private static long movedByLocate(String router, String old, String next, List<String> keys, String hashTag) {
    RouterSpec spec = RouterSpec.of(router).withKetamaCompatibility("twemproxy");
    return movedByLocate(spec, spec, old, next, keys, hashTag);
  }

  /** The keys whose server differs from {@code oldSpec} on {@code old} to {@code newSpec} on {@code next}. */
  private static long movedByLocate(
      RouterSpec oldSpec, RouterSpec newSpec, String old, String next, List<String> keys, String hashTag) {
    Router before = oldSpec.build(ServerList.parse(old));
    Router after = newSpec.build(ServerList.parse(next));
    HashTag tag = HashTag.of(hashTag);
    long moved = 0;
    for (String key : keys) {
      Node a = before.nodes().get(before.primary(tag.hash(before.hasher(), key)));
      Node b = after.nodes().get(after.primary(tag.hash(after.hasher(), key)));
      if (!a.equals(b)) {
        moved++;
      }
    }
    return moved;
  }

  @Test
  void bigFleetsShowTheTopFlowsAndASummaryLine() {
    int code = run("plan", "--from", servers(1, 200), "--to", servers(1, 201), "--router", "modulo", "--sample", "20000", "--top", "5");
    assertThat(code).isZero();
    List<String> flowLines = out.toString().lines().filter(l -> l.startsWith("  ") && l.contains(" -> ")).collect(Collectors.toList());
    assertThat(flowLines).hasSize(5);
    assertThat(out.toString()).containsPattern("\n  \\.\\.\\. [0-9,]+ more flows: [0-9,]+ keys \\([0-9.]+%\\)\n");
  }

  @Test
  void anUnchangedListMovesNothing() {
    RouterFigures r = plan("--from", servers(1, 3), "--to", servers(1, 3), "--router", "hrw", "--sample", "1000").get(0);
    assertThat(r.moved()).isZero();
    assertThat(r.optimum()).isZero();
    assertThat(out.toString()).contains("\"ratio\": null");
  }

  /** One router's {@code replicaSets} in plan's JSON: totals, and per server before, after, added, removed. */
  record ReplicaFigures(long copies, long added, long removed, long keysChanged, Map<String, long[]> servers) {}

  /** The replica figures of {@code router} in the JSON plan just printed. */
  private ReplicaFigures replicaFigures(String router) {
    String json = out.toString();
    int start = json.indexOf("\"router\": \"" + router + "\"");
    assertThat(start).as(router).isNotNegative();
    int end = json.indexOf("\"router\": ", start + 1);
    String block = json.substring(start, end < 0 ? json.length() : end);
    int replicaSets = block.indexOf("\"replicaSets\": {");
    assertThat(replicaSets).as(router + " has replicaSets").isNotNegative();
    block = block.substring(replicaSets);
    Map<String, long[]> servers = new LinkedHashMap<>();
    Matcher m =
        Pattern.compile(
                "\"server\": \"([^\"]+)\",\\s*\"before\": (\\d+),\\s*\"after\": (\\d+),"
                    + "\\s*\"added\": (\\d+),\\s*\"removed\": (\\d+)")
            .matcher(block);
    while (m.find()) {
      servers.put(
          m.group(1),
          new long[] {
            Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
            Long.parseLong(m.group(4)), Long.parseLong(m.group(5))
          });
    }
    return new ReplicaFigures(
        number(block, "copies"), number(block, "added"), number(block, "removed"),
        number(block, "keysChanged"), servers);
  }

  @Test
  void withoutReplicasThePlanHasNoReplicaSection() {
    plan("--from", servers(1, 5), "--to", servers(1, 6), "--sample", "1000");
    assertThat(out.toString()).doesNotContain("replica");
    assertThat(run("plan", "--from", servers(1, 5), "--to", servers(1, 6), "--sample", "1000")).isZero();
    assertThat(out.toString()).doesNotContainIgnoringCase("replica").doesNotContain("copies");
  }

  @Test
  void oneReplicaAddsAndRemovesACopyForEveryKeyThatMoves() {
    List<RouterFigures> figures =
        plan("--from", servers(1, 10), "--to", servers(1, 3) + "," + servers(5, 11), "--sample", "20000",
            "--replicas", "1");
    assertThat(out.toString()).contains("\"replicas\": 1,");
    assertThat(figures).extracting(RouterFigures::router).containsExactlyElementsOf(EVERY_ROUTER);
    for (RouterFigures r : figures) {
      ReplicaFigures c = replicaFigures(r.router());
      assertThat(c.copies()).isEqualTo(r.keys());
      assertThat(c.added()).as(r.router()).isEqualTo(r.moved());
      assertThat(c.removed()).as(r.router()).isEqualTo(r.moved());
      assertThat(c.keysChanged()).as(r.router()).isEqualTo(r.moved());
      assertThat(c.servers()).hasSize(11);
      assertThat(c.servers().get("127.0.0.4:11211")).as(r.router()).containsExactly(
          c.servers().get("127.0.0.4:11211")[0], 0, 0, c.servers().get("127.0.0.4:11211")[0]);
    }
  }

  @Test
  void twoReplicasOnHrwCopyOneInNPlusOneOfTheCopiesAllToTheNewServer() {
    int sample = 200_000;
    RouterFigures r =
        plan("--from", servers(1, 10), "--to", servers(1, 11), "--router", "hrw",
                "--sample", Integer.toString(sample), "--replicas", "2")
            .get(0);
    ReplicaFigures c = replicaFigures("hrw");
    assertThat(c.copies()).isEqualTo(2L * sample);
    assertThat(c.removed()).isEqualTo(c.added());
    // A key's set changes when the new server is among its 2 best of 11, and gains that one copy.
    assertThat(c.keysChanged()).isEqualTo(c.added());
    assertThat((double) c.keysChanged() / sample).isCloseTo(2.0 / 11, within(5 * Math.sqrt(2.0 / 11 * 9 / 11 / sample)));
    assertThat((double) c.added() / c.copies()).isCloseTo(1.0 / 11, within(0.003));
    long before = 0;
    long after = 0;
    for (Map.Entry<String, long[]> e : c.servers().entrySet()) {
      long[] v = e.getValue();
      before += v[0];
      after += v[1];
      assertThat(v[1]).as(e.getKey()).isEqualTo(v[0] + v[2] - v[3]);
      if (e.getKey().equals("127.0.0.11:11211")) {
        assertThat(v).containsExactly(0, c.added(), c.added(), 0);
      } else {
        assertThat(v[2]).as(e.getKey()).isZero();
      }
    }
    assertThat(before).isEqualTo(c.copies());
    assertThat(after).isEqualTo(c.copies());
    // One copy: the plan's moved keys, for comparison.
    assertThat((double) r.moved() / sample).isCloseTo(1.0 / 11, within(0.003));
  }

  @ParameterizedTest
  @ValueSource(strings = {"ketama", "hrw", "jump", "maglev", "modulo"})
  void replicaCopiesOfAKeysFileAreWhatLocatePrints(String router) throws IOException {
    List<String> keys = someTaggedKeys();
    Path keysFile = Files.write(dir.resolve("keys"), keys, StandardCharsets.UTF_8);
    String old = servers(1, 5);
    String next = servers(2, 7);
    plan("--from", old, "--to", next, "--router", router, "--compat", "twemproxy",
        "--keys-file", keysFile.toString(), "--hash-tag", "{}", "--replicas", "3");
    RouterSpec spec = RouterSpec.of(router).withKetamaCompatibility("twemproxy");
    ReplicaFigures figures = replicaFigures(spec.toString());

    Router before = spec.build(ServerList.parse(old));
    Router after = spec.build(ServerList.parse(next));
    HashTag tag = HashTag.of("{}");
    Map<String, long[]> expected = new LinkedHashMap<>();
    for (int i = 1; i <= 7; i++) {
      expected.put("127.0.0." + i + ":11211", new long[4]);
    }
    long changed = 0;
    for (String key : keys) {
      Set<String> was = addresses(before, tag.hash(before.hasher(), key), 3);
      Set<String> is = addresses(after, tag.hash(after.hasher(), key), 3);
      was.forEach(s -> expected.get(s)[0]++);
      is.forEach(s -> expected.get(s)[1]++);
      is.stream().filter(s -> !was.contains(s)).forEach(s -> expected.get(s)[2]++);
      was.stream().filter(s -> !is.contains(s)).forEach(s -> expected.get(s)[3]++);
      changed += was.equals(is) ? 0 : 1;
    }
    assertThat(figures.keysChanged()).isEqualTo(changed);
    assertThat(figures.copies()).isEqualTo(3L * keys.size());
    assertThat(figures.servers().keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    for (Map.Entry<String, long[]> e : expected.entrySet()) {
      assertThat(figures.servers().get(e.getKey())).as(e.getKey()).containsExactly(e.getValue());
    }
  }

  /** The addresses of a key's first {@code n} replicas, as locate --replicas prints them. */
  private static Set<String> addresses(Router router, long hash, int n) {
    int[] replicas = new int[n];
    router.replicas(hash, n, replicas);
    Set<String> set = new LinkedHashSet<>();
    for (int i : replicas) {
      set.add(router.nodes().get(i).address());
    }
    return set;
  }

  @Test
  void replicaTextShowsATableOfRoutersAndTheTopServersOfEach() {
    int code =
        run("plan", "--from", servers(1, 5), "--to", servers(1, 6), "--router", "ring,maglev",
            "--sample", "6000", "--replicas", "2", "--top", "4");
    assertThat(err.toString()).isEmpty();
    assertThat(code).isZero();
    String text = out.toString();
    assertThat(text)
        .contains("\nReplicas: 2 per key, the first 2 distinct servers of its preference order; a copy"
            + " is one key on one server.\n\n")
        .containsPattern("\nrouter +copies +added +added % +removed +removed % +keys changed +changed %\n")
        .containsPattern("\nring\\(V=160\\) +12,000 +[0-9,]+ +[0-9.]+% +[0-9,]+ +[0-9.]+% +[0-9,]+ +[0-9.]+%\n")
        .contains("\nring(V=160), 2 replicas: copies per server, most after the change first:\n")
        .contains("\nmaglev(M=65537), 2 replicas: copies per server, most after the change first:\n");
    List<String> serverLines =
        text.lines().filter(l -> l.matches("  127\\.0\\.0\\.[0-9]:11211 +[0-9,]+ +[0-9,]+ +[0-9,]+ +[0-9,]+"))
            .collect(Collectors.toList());
    assertThat(serverLines).hasSize(8);
    assertThat(text).containsPattern("\n  \\.\\.\\. 2 more servers: [0-9,]+ before, [0-9,]+ after, [0-9,]+ added,"
        + " [0-9,]+ removed\n");
    // The plan without replicas comes first, unchanged.
    assertThat(text).startsWith("Plan: 5 servers -> 6 servers: 1 added, 0 removed, 0 reweighted, 5 unchanged\n");
    assertThat(text.indexOf("ring(V=160): ")).isLessThan(text.indexOf("\nReplicas: "));
  }

  @Test
  void badInputIsOneLineNamingTheValueAndExitCode2() throws IOException {
    assertRejected("shardwise: --from 'a:1,a:1': server list must not name a server twice but a:1 is entry 1 and entry 2\n",
        "plan", "--from", "a:1,a:1", "--to", "a:1");
    assertRejected("shardwise: --to '': server list must name at least one server but was empty\n",
        "plan", "--from", "a:1", "--to", "");
    assertRejected("shardwise: --to 'a:1,b:x': server entry 'b:x': port must be a decimal integer but was 'x'\n",
        "plan", "--from", "a:1", "--to", "a:1,b:x");
    assertRejected("shardwise: --from: no such file: " + dir.resolve("missing") + "\n",
        "plan", "--from", "@" + dir.resolve("missing"), "--to", "a:1");
    assertRejected("shardwise: --keys-file: no such file: " + dir.resolve("nokeys") + "\n",
        "plan", "--from", "a:1", "--to", "a:1", "--keys-file", dir.resolve("nokeys").toString());
    Path empty = Files.writeString(dir.resolve("empty"), "");
    assertRejected("shardwise: --keys-file " + empty + ": the file has no keys\n",
        "plan", "--from", "a:1", "--to", "a:1", "--keys-file", empty.toString());
    assertRejected("shardwise: unknown router 'chord'; expected one of ketama, ring, hrw, jump, multiprobe, maglev, modulo, compat\n",
        "plan", "--from", "a:1", "--to", "a:1", "--router", "hrw,chord");
    assertRejected("shardwise: unknown ketama compatibility mode 'memcachedb'; expected one of libketama, libmemcached, twemproxy, spymemcached, spymemcached-weighted\n",
        "plan", "--from", "a:1", "--to", "a:1", "--compat", "memcachedb");
    assertRejected("shardwise: jump: jump supports no weights: every node must have weight 1 but node 'a:1' has weight 2"
            + " (use hrw, maglev or a ring for weighted nodes)\n",
        "plan", "--from", "a:1:2", "--to", "a:1", "--router", "jump");
    assertRejected("shardwise: --format must be text or json but was 'xml'\n",
        "plan", "--from", "a:1", "--to", "a:1", "--format", "xml");
    assertRejected("shardwise: --sample must be >= 1 but was 0\n",
        "plan", "--from", "a:1", "--to", "a:1", "--sample", "0");
    assertRejected("shardwise: --sample and --keys-file exclude each other\n",
        "plan", "--from", "a:1", "--to", "a:1", "--sample", "5", "--keys-file", empty.toString());
    assertRejected("shardwise: --hash-tag needs --keys-file: without it plan draws key hashes, not keys\n",
        "plan", "--from", "a:1", "--to", "a:1", "--hash-tag", "{}");
    assertRejected("shardwise: Missing required option: '--to=NEW'\n", "plan", "--from", "a:1");
    assertRejected("shardwise: --replicas must be >= 1 but was 0\n",
        "plan", "--from", "a:1", "--to", "a:1", "--replicas", "0");
    assertRejected("shardwise: --replicas must be >= 1 but was -1\n",
        "plan", "--from", "a:1", "--to", "a:1", "--replicas", "-1");
    assertRejected("shardwise: --replicas must be at most the number of servers of each list (--from names 2,"
            + " --to 3) but was 3\n",
        "plan", "--from", "a:1,b:1", "--to", "a:1,b:1,c:1", "--replicas", "3");
    assertRejected("shardwise: --replicas must be at most the number of servers of each list (--from names 3,"
            + " --to 2) but was 3\n",
        "plan", "--from", "a:1,b:1,c:1", "--to", "a:1,b:1", "--replicas", "3");
  }

  /** Five standard deviations of the share of {@code n} keys that move with probability {@code p}. */
  private static double fiveSigma(double p, int n) {
    return 5 * Math.sqrt(p * (1 - p) / n);
  }

  @Test
  void fromModuloToKetamaOnTheSameFiveServersMovesFourKeysInFive() {
    int sample = 100_000;
    List<RouterFigures> figures =
        plan("--from", servers(1, 5), "--from-router", "modulo", "--to-router", "ketama", "--compat", "libketama",
            "--sample", Integer.toString(sample));
    assertThat(figures).extracting(RouterFigures::router).containsExactly("modulo -> ketama(libketama)");
    RouterFigures r = figures.get(0);
    // Modulo gives each server 1/5 whatever ketama's shares: a key stays with probability 1/5.
    assertThat((double) r.moved() / r.keys()).isCloseTo(0.8, within(fiveSigma(0.8, sample)));
    assertThat(r.optimum()).isZero();
    assertThat(Double.parseDouble(field(out.toString(), "unrelated"))).isCloseTo(0.8, within(1e-12));
    assertThat(r.flows()).hasSize(20);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ketama,maglev", "hrw,jump", "jump,hrw", "maglev,multiprobe"})
  void aChangeOfRouterOnTheSameListMovesWhatTwoUnrelatedPlacementsMove(String pair) {
    String[] routers = pair.split(",");
    int sample = 100_000;
    RouterFigures r =
        plan("--from", servers(1, 5), "--from-router", routers[0], "--to-router", routers[1], "--compat",
                "libketama", "--sample", Integer.toString(sample))
            .get(0);
    // Old shares p_s, new shares q_s = 1/5 (up to Maglev's table and multi-probe's points): sum p_s q_s = 1/5.
    double tolerance = fiveSigma(0.8, sample) + (routers[1].equals("multiprobe") ? 0.01 : 0.001);
    assertThat((double) r.moved() / r.keys()).as(pair).isCloseTo(0.8, within(tolerance));
    assertThat(r.optimum()).isZero();
    assertThat(r.moved()).as(pair).isGreaterThan(r.floor());
  }

  @Test
  void aChangeOfRouterExplainsTheOptimumInTheText() {
    int code =
        run("plan", "--from", servers(1, 5), "--from-router", "modulo", "--to-router", "hrw", "--sample", "10000");
    assertThat(err.toString()).isEmpty();
    assertThat(code).isZero();
    assertThat(out.toString())
        .startsWith("Plan: 5 servers -> 5 servers: 0 added, 0 removed, 0 reweighted, 5 unchanged\n"
            + "Keys: 10,000 random key hashes (seed 1)\n"
            + "Optimum: 0.000% of the keys must move at the least (total variation distance between the"
            + " old and new weight shares)\n"
            + "The router changes: the optimum is the least a consistent change of the servers' shares must"
            + " move,\nand every server keeps its share here, so it is 0; every key a row moves is the cost of"
            + " the new\nplacement itself. Two unrelated placements keep a key on its server only by chance:"
            + " they move\n80.000% (1 - sum over s of p_s x q_s, with the old and new weight shares p and q).\n\n"
            + "router           keys  moved  moved %  optimum %  moved/optimum  excess %\n")
        .containsPattern("\nmodulo -> hrw  10,000  [0-9],[0-9]{3}  [0-9.]+%     0.000%              -   [0-9.]+%\n")
        .contains("\nmodulo -> hrw: ");
    // Without a change of router the plan does not mention it.
    assertThat(run("plan", "--from", servers(1, 5), "--to", servers(1, 6), "--router", "hrw", "--sample", "1000"))
        .isZero();
    assertThat(out.toString()).doesNotContain("The router changes").doesNotContain("unrelated");
    plan("--from", servers(1, 5), "--to", servers(1, 6), "--router", "hrw", "--sample", "1000");
    assertThat(out.toString()).doesNotContain("unrelated").doesNotContain("fromRouter").doesNotContain("toRouter");
  }

  @Test
  void theSameRouterOnBothSidesPlansWhatRouterPlans() {
    for (String router : new String[] {"ketama", "ring", "maglev", "modulo"}) {
      RouterFigures same =
          plan("--from", servers(1, 10), "--to", servers(1, 3) + "," + servers(5, 11), "--router", router,
                  "--compat", "twemproxy", "--sample", "20000")
              .get(0);
      RouterFigures change =
          plan("--from", servers(1, 10), "--to", servers(1, 3) + "," + servers(5, 11), "--from-router", router,
                  "--to-router", router, "--compat", "twemproxy", "--sample", "20000")
              .get(0);
      assertThat(change.router()).isEqualTo(same.router() + " -> " + same.router());
      assertThat(change.moved()).as(router).isEqualTo(same.moved());
      assertThat(change.floor()).as(router).isEqualTo(same.floor());
      assertThat(change.flows()).as(router).usingRecursiveFieldByFieldElementComparator()
          .containsExactlyElementsOf(same.flows());
    }
  }

  @Test
  void aChangeOfRouterAndListMovesWhatUnrelatedPlacementsOfTheTwoListsMove() {
    int sample = 100_000;
    List<RouterFigures> figures =
        plan("--from", servers(1, 5), "--to", servers(1, 6), "--from-router", "modulo", "--to-router", "hrw,jump",
            "--sample", Integer.toString(sample));
    assertThat(figures).extracting(RouterFigures::router).containsExactly("modulo -> hrw", "modulo -> jump");
    String json = out.toString();
    assertThat(json)
        .contains("\"fromRouter\": \"modulo\",\n      \"toRouter\": \"hrw\",")
        .contains("\"fromRouter\": \"modulo\",\n      \"toRouter\": \"jump\",");
    // 1 - 5 x (1/5 x 1/6) = 5/6 move; a consistent change of shares moves 1/6.
    assertThat(Double.parseDouble(field(json, "unrelated"))).isCloseTo(5.0 / 6, within(1e-12));
    for (RouterFigures r : figures) {
      assertThat(r.optimum()).isCloseTo(1.0 / 6, within(1e-12));
      assertThat((double) r.moved() / r.keys()).as(r.router()).isCloseTo(5.0 / 6, within(fiveSigma(5.0 / 6, sample)));
      assertThat(r.flows()).as(r.router()).anySatisfy(flow -> assertThat(flow[1]).isEqualTo("127.0.0.6:11211"));
    }
  }

  @Test
  void oneListServesBothSidesOfAChangeOfRouter() {
    RouterFigures fromOnly =
        plan("--from", servers(1, 4), "--from-router", "ring", "--to-router", "hrw", "--sample", "5000").get(0);
    assertThat(out.toString()).contains("\"serversBefore\": 4,\n  \"serversAfter\": 4,");
    RouterFigures toOnly =
        plan("--to", servers(1, 4), "--from-router", "ring", "--to-router", "hrw", "--sample", "5000").get(0);
    RouterFigures both =
        plan("--from", servers(1, 4), "--to", servers(1, 4), "--from-router", "ring", "--to-router", "hrw",
                "--sample", "5000")
            .get(0);
    assertThat(fromOnly.router()).isEqualTo("ring(V=160) -> hrw");
    assertThat(fromOnly.moved()).isEqualTo(both.moved()).isEqualTo(toOnly.moved());
  }

  @Test
  void eachRouterOptionHasAnOldAndANewValue() {
    List<RouterFigures> figures =
        plan("--from", servers(1, 5), "--from-router", "maglev,ring,ketama", "--to-router", "maglev,ring,ketama",
            "--from-table-size", "65537", "--to-table-size", "5003", "--from-points", "160", "--to-points", "40",
            "--from-compat", "libketama", "--to-compat", "twemproxy", "--sample", "20000");
    assertThat(figures).extracting(RouterFigures::router).contains(
        "maglev(M=65537) -> maglev(M=5003)", "ring(V=160) -> ring(V=40)", "ketama(libketama) -> ketama(twemproxy)",
        "maglev(M=65537) -> ketama(twemproxy)");
    assertThat(figures).hasSize(9).allSatisfy(r -> assertThat(r.moved()).as(r.router()).isPositive());
    // libketama keeps port 11211 in its point names, twemproxy drops it: two unrelated rings.
    RouterFigures ketama =
        figures.stream().filter(r -> r.router().equals("ketama(libketama) -> ketama(twemproxy)")).findFirst().get();
    assertThat((double) ketama.moved() / ketama.keys()).isGreaterThan(0.5);
    RouterFigures compat =
        plan("--from", servers(1, 5), "--from-router", "compat", "--from-compat-mode", "spymemcached:array_mod:native_hash",
                "--to-router", "compat", "--to-compat-mode", "twemproxy:fnv1a_64:ketama", "--sample", "1000")
            .get(0);
    assertThat(compat.router())
        .isEqualTo("compat(spymemcached:array_mod:native_hash) -> compat(twemproxy:fnv1a_64:ketama)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"modulo,ketama", "ketama,maglev", "hrw,jump", "compat,hrw"})
  void aKeysFileMovesWhatLocateSaysWhenTheRouterChanges(String pair) throws IOException {
    String[] routers = pair.split(",");
    List<String> keys = someTaggedKeys();
    Path keysFile = Files.write(dir.resolve("keys"), keys, StandardCharsets.UTF_8);
    String old = servers(1, 5);
    String next = servers(1, 6);
    RouterFigures r =
        plan("--from", old, "--to", next, "--from-router", routers[0], "--to-router", routers[1],
                "--compat", "twemproxy", "--compat-mode", "spymemcached:array_mod:native_hash",
                "--keys-file", keysFile.toString(), "--hash-tag", "{}")
            .get(0);
    RouterSpec base = RouterSpec.DEFAULT.withKetamaCompatibility("twemproxy")
        .withCompatMode("spymemcached:array_mod:native_hash");
    RouterSpec oldSpec = base.withType(RouterSpec.Type.of(routers[0]));
    RouterSpec newSpec = base.withType(RouterSpec.Type.of(routers[1]));
    assertThat(r.router()).isEqualTo(oldSpec + " -> " + newSpec);
    assertThat(r.keys()).isEqualTo(3000);
    assertThat(r.moved()).as(pair).isEqualTo(movedByLocate(oldSpec, newSpec, old, next, keys, "{}"));
  }

  @Test
  void replicaCopiesOfAChangeOfRouterAreWhatLocatePrints() throws IOException {
    List<String> keys = someTaggedKeys();
    Path keysFile = Files.write(dir.resolve("keys"), keys, StandardCharsets.UTF_8);
    String old = servers(1, 5);
    String next = servers(2, 7);
    plan("--from", old, "--to", next, "--from-router", "ketama", "--to-router", "maglev", "--compat", "twemproxy",
        "--keys-file", keysFile.toString(), "--hash-tag", "{}", "--replicas", "3");
    ReplicaFigures figures = replicaFigures("ketama(twemproxy) -> maglev(M=65537)");

    Router before = RouterSpec.of("ketama").withKetamaCompatibility("twemproxy").build(ServerList.parse(old));
    Router after = RouterSpec.of("maglev").build(ServerList.parse(next));
    HashTag tag = HashTag.of("{}");
    Map<String, long[]> expected = new LinkedHashMap<>();
    for (int i = 1; i <= 7; i++) {
      expected.put("127.0.0." + i + ":11211", new long[4]);
    }
    long changed = 0;
    for (String key : keys) {
      Set<String> was = addresses(before, tag.hash(before.hasher(), key), 3);
      Set<String> is = addresses(after, tag.hash(after.hasher(), key), 3);
      was.forEach(s -> expected.get(s)[0]++);
      is.forEach(s -> expected.get(s)[1]++);
      is.stream().filter(s -> !was.contains(s)).forEach(s -> expected.get(s)[2]++);
      was.stream().filter(s -> !is.contains(s)).forEach(s -> expected.get(s)[3]++);
      changed += was.equals(is) ? 0 : 1;
    }
    assertThat(figures.keysChanged()).isEqualTo(changed);
    assertThat(figures.copies()).isEqualTo(3L * keys.size());
    for (Map.Entry<String, long[]> e : expected.entrySet()) {
      assertThat(figures.servers().get(e.getKey())).as(e.getKey()).containsExactly(e.getValue());
    }
  }

  @Test
  void twoReplicasUnderANewRouterLoseThreeCopiesInFive() {
    int sample = 100_000;
    plan("--from", servers(1, 5), "--from-router", "hrw", "--to-router", "maglev", "--sample",
        Integer.toString(sample), "--replicas", "2");
    ReplicaFigures c = replicaFigures("hrw -> maglev(M=65537)");
    assertThat(c.copies()).isEqualTo(2L * sample);
    assertThat(c.removed()).isEqualTo(c.added());
    // A new replica is any of the 5 servers, 2 of which hold the key already: 3/5 of the copies are new.
    assertThat((double) c.added() / c.copies()).isCloseTo(0.6, within(fiveSigma(0.6, sample)));
    // The set stays only when the new pair is the old one: 1 in C(5, 2) = 10.
    assertThat((double) c.keysChanged() / sample).isCloseTo(0.9, within(fiveSigma(0.9, sample)));
  }

  @Test
  void badPlacementChangesAreOneLineNamingTheOptionAndExitCode2() {
    String five = servers(1, 5);
    assertRejected("shardwise: --router and --from-router/--to-router exclude each other: --router plans the same"
            + " router on both sides, --from-router and --to-router a change of router\n",
        "plan", "--from", five, "--router", "hrw", "--from-router", "modulo", "--to-router", "ketama");
    // Before anything else is checked: here the list is not even valid.
    assertRejected("shardwise: --router and --from-router/--to-router exclude each other: --router plans the same"
            + " router on both sides, --from-router and --to-router a change of router\n",
        "plan", "--from", "a:x", "--to-router", "ketama", "--router", "hrw");
    assertRejected("shardwise: --from-router needs --to-router: name the router on both sides (the same one to"
            + " change only its options)\n",
        "plan", "--from", five, "--from-router", "modulo");
    assertRejected("shardwise: --to-router needs --from-router: name the router on both sides (the same one to"
            + " change only its options)\n",
        "plan", "--from", five, "--to", five, "--to-router", "modulo");
    assertRejected("shardwise: --to-table-size needs --from-router and --to-router\n",
        "plan", "--from", five, "--to", five, "--router", "maglev", "--to-table-size", "5003");
    assertRejected("shardwise: --from-router and --to-router need a server list: --from, --to or both (one list"
            + " serves both sides)\n",
        "plan", "--from-router", "modulo", "--to-router", "hrw");
    assertRejected("shardwise: Missing required options: '--from=OLD', '--to=NEW'\n", "plan");
    assertRejected("shardwise: --to-router: unknown router 'chord'; expected one of ketama, ring, hrw, jump,"
            + " multiprobe, maglev, modulo, compat\n",
        "plan", "--from", five, "--from-router", "modulo", "--to-router", "hrw,chord");
    assertRejected("shardwise: --from-router: unknown router 'mod'; expected one of ketama, ring, hrw, jump,"
            + " multiprobe, maglev, modulo, compat\n",
        "plan", "--from", five, "--from-router", "mod", "--to-router", "hrw");
    assertRejected("shardwise: --to-router jump: jump supports no weights: every node must have weight 1 but node"
            + " '127.0.0.1:11211' has weight 2 (use hrw, maglev or a ring for weighted nodes)\n",
        "plan", "--from", "127.0.0.1:11211:2,127.0.0.2:11211", "--from-router", "hrw", "--to-router", "jump");
    assertRejected("shardwise: --from-router modulo: modulo supports no weights: every node must have weight 1 but"
            + " node '127.0.0.1:11211' has weight 2 (use hrw, maglev or a ring for weighted nodes)\n",
        "plan", "--from", "127.0.0.1:11211:2,127.0.0.2:11211", "--from-router", "modulo", "--to-router", "hrw");
    assertRejected("shardwise: --to-router maglev --to-table-size 65536: maglev table size must be a prime larger"
            + " than the node count 5 but was 65536\n",
        "plan", "--from", five, "--from-router", "modulo", "--to-router", "maglev", "--to-table-size", "65536");
    assertRejected("shardwise: --from-router maglev --table-size 4: maglev table size must be a prime larger"
            + " than the node count 5 but was 4\n",
        "plan", "--from", five, "--from-router", "maglev", "--to-router", "hrw", "--table-size", "4");
    assertRejected("shardwise: --to-table-size: maglev table size must be a prime >= 2 but was 1\n",
        "plan", "--from", five, "--from-router", "modulo", "--to-router", "maglev", "--to-table-size", "1");
    assertRejected("shardwise: --from-probes: multiprobe probes must be >= 1 but was 0\n",
        "plan", "--from", five, "--from-router", "multiprobe", "--to-router", "hrw", "--from-probes", "0");
    assertRejected("shardwise: --to-points: ring points per node must be >= 1 but was -3\n",
        "plan", "--from", five, "--from-router", "hrw", "--to-router", "ring", "--to-points", "-3");
    assertRejected("shardwise: --to-compat: unknown ketama compatibility mode 'memcachedb'; expected one of"
            + " libketama, libmemcached, twemproxy, spymemcached, spymemcached-weighted\n",
        "plan", "--from", five, "--from-router", "modulo", "--to-router", "ketama", "--to-compat", "memcachedb");
    assertRejected("shardwise: --from-compat-mode: unknown compat mode 'spy'; expected a mode starting with"
            + " twemproxy:, libmemcached:, spymemcached:, xmemcached: or jedis:\n",
        "plan", "--from", five, "--from-router", "compat", "--from-compat-mode", "spy", "--to-router", "hrw");
    assertRejected("shardwise: Invalid value for option '--to-probes': 'x' is not an int\n",
        "plan", "--from", five, "--from-router", "hrw", "--to-router", "multiprobe", "--to-probes", "x");
  }

  private void assertRejected(String message, String... args) {
    assertThat(run(args)).as(message).isEqualTo(2);
    assertThat(err.toString()).isEqualTo(message);
    assertThat(out.toString()).isEmpty();
  }
}
