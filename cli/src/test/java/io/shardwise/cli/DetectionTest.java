package io.shardwise.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.core.RouterSpec;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Detection and its report on fleets made up here: every key placed by known modes. */
class DetectionTest {

  private static final List<Node> NODES =
      ServerList.parse("127.0.0.1:11211,127.0.0.1:11212,127.0.0.1:2,127.0.0.1:40000");

  private static RouterSpec compat(String mode) {
    return RouterSpec.of("compat").withCompatMode(mode);
  }

  /**
   * {@code into} with {@code count} keys {@code prefix<n><suffix>} added where {@code spec} on
   * {@code on} places them, {@code into.get(i)} holding the keys of {@code NODES.get(i)} (the
   * same server as {@code on}'s, whatever its name).
   */
  private static List<List<byte[]>> placedBy(RouterSpec spec, HashTag tag, List<Node> on, String prefix,
      String suffix, int count, List<List<byte[]>> into) {
    Router router = spec.build(on);
    SplittableRandom random = new SplittableRandom(prefix.hashCode());
    for (int i = 0; i < count; i++) {
      byte[] key = (prefix + random.nextLong() + suffix).getBytes(StandardCharsets.UTF_8);
      Node node = on.get(router.primary(tag.hash(router.hasher(), key)));
      int server = 0;
      while (!NODES.get(server).address().equals(node.address())) {
        server++;
      }
      into.get(server).add(key);
    }
    return into;
  }

  private static List<List<byte[]>> placedBy(RouterSpec spec, HashTag tag, List<Node> on, String prefix, int count,
      List<List<byte[]>> into) {
    return placedBy(spec, tag, on, prefix, "", count, into);
  }

  private static List<List<byte[]>> placedBy(RouterSpec spec, String prefix, int count, List<List<byte[]>> into) {
    return placedBy(spec, HashTag.NONE, NODES, prefix, count, into);
  }

  private static List<List<byte[]>> empty() {
    List<List<byte[]>> keys = new ArrayList<>();
    for (int i = 0; i < NODES.size(); i++) {
      keys.add(new ArrayList<>());
    }
    return keys;
  }

  /** The report of a fleet holding {@code keys}, scored as detect scores it. */
  private record Report(int status, String text) {

    /** The share printed for {@code mode}, or -1 if the table does not list it. */
    double share(String mode) {
      Matcher m = Pattern.compile("^\\s*([0-9.]+)%\\s+\\d+\\s+\\S+\\s+" + Pattern.quote(mode) + "$", Pattern.MULTILINE)
          .matcher(text);
      return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    List<String> properties() {
      return text.lines().filter(l -> l.startsWith("shardwise.")).toList();
    }
  }

  private static Report report(List<List<byte[]>> keys, Writer writer, ValueSample values) {
    return report(NODES, keys, writer, values);
  }

  private static Report report(List<Node> nodes, List<List<byte[]>> keys, Writer writer, ValueSample values) {
    Sample sample = new Sample(nodes, keys);
    List<HashTag> tags = new ArrayList<>(List.of(HashTag.NONE));
    tags.addAll(Hints.tags(sample));
    List<Detection.Score> scores = Detection.score(sample, Detection.candidates(false, writer), tags);
    StringWriter text = new StringWriter();
    int status = DetectReport.write(new DetectReport.Request("memcached", nodes, writer, 5, tags), sample, scores,
        values, new PrintWriter(text, true));
    return new Report(status, text.toString());
  }

  private static Report report(List<List<byte[]>> keys) {
    return report(keys, null, ValueSample.NONE);
  }

  @Test
  void everyCandidateFindsItselfAtFullShare() {
    for (RouterSpec spec : Detection.candidates(false, null)) {
      Sample sample = new Sample(NODES, placedBy(spec, "k:", 500, empty()));
      List<Detection.Score> scores = Detection.score(sample, List.of(spec), List.of(HashTag.NONE));
      assertThat(scores.get(0).share()).as(spec.toString()).isEqualTo(1.0);
    }
  }

  @Test
  void aLibmemcachedFleetWhoseHashWasSetAfterTheDistributionIsFound() {
    Report r = report(placedBy(compat("libmemcached:fnv1a_32:consistent:points=default"), "k:", 3_000, empty()));
    assertThat(r.status()).isEqualTo(DetectReport.FOUND);
    assertThat(r.share("compat libmemcached:fnv1a_32:consistent:points=default")).isEqualTo(100.0);
    assertThat(r.properties()).contains("shardwise.compat.mode=libmemcached:fnv1a_32:consistent:points=default");
  }

  @Test
  void modesOfSeveralClientsAtFullShareAreAllListedAndDetectAsksWhichClientWroteTheFleet() {
    // twemproxy md5 ketama on unnamed servers: the same points as libketama, libmemcached and
    // spymemcached's ketama for this list.
    List<Node> nodes = ServerList.parse("127.0.0.1:11213,127.0.0.1:11214,127.0.0.1:11215");
    List<List<byte[]>> keys = new ArrayList<>(List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
    Router twemproxy = compat("twemproxy:md5:ketama").build(nodes);
    for (int i = 0; i < 5_000; i++) {
      byte[] key = ("k:" + i).getBytes(StandardCharsets.UTF_8);
      keys.get(twemproxy.primary(twemproxy.hasher().hash(key))).add(key);
    }
    Report r = report(nodes, keys, null, ValueSample.NONE);

    assertThat(r.status()).isEqualTo(DetectReport.WHICH_WRITER);
    assertThat(r.properties()).isEmpty();
    for (String mode : List.of("compat twemproxy:md5:ketama", "ketama twemproxy", "compat libmemcached:md5:consistent_weighted",
        "ketama libmemcached", "ketama libketama", "ketama spymemcached")) {
      assertThat(r.share(mode)).as(mode).isEqualTo(100.0);
    }
    assertThat(r.text()).contains("Which client wrote the fleet? Run detect again with --writer twemproxy or"
        + " --writer libmemcached");
    // Port 11211 is hashed by libketama and dropped by libmemcached and twemproxy; a name is
    // hashed by twemproxy only.
    assertThat(r.text()).contains("127.0.0.1:11213 named cache-1: twemproxy | libmemcached, spymemcached, libketama");
    assertThat(r.text()).containsPattern("127\\.0\\.0\\.1:11211 added: [^\\n]*\\| [^\\n]*libketama");
    assertThat(r.text()).doesNotContain("place the sampled keys equally well");
  }

  @Test
  void withTheWriterNamedItPrintsAWorkingConfiguration() {
    List<Node> named = ServerList.parse("cache-a=127.0.0.1:11211,127.0.0.1:11212,127.0.0.1:2 b,127.0.0.1:40000");
    List<List<byte[]>> keys = placedBy(compat("twemproxy:fnv1a_64:ketama"), HashTag.NONE, named, "k:", 3_000, empty());
    Sample sample = new Sample(named, keys);
    List<Detection.Score> scores =
        Detection.score(sample, Detection.candidates(false, Writer.TWEMPROXY), List.of(HashTag.NONE));
    StringWriter text = new StringWriter();
    ValueSample values = new ValueSample(List.of(new ValueSample.Value("v1".getBytes(StandardCharsets.UTF_8), 0)),
        0, false, List.of());
    int status = DetectReport.write(new DetectReport.Request("memcached", named, Writer.TWEMPROXY, 5,
        List.of(HashTag.NONE)), sample, scores, values, new PrintWriter(text, true));

    assertThat(status).isEqualTo(DetectReport.FOUND);
    assertThat(text.toString().lines().filter(l -> l.startsWith("shardwise.")))
        .containsExactly(
            "shardwise.backend=memcached",
            "shardwise.servers=cache-a=127.0.0.1:11211,127.0.0.1:11212,b=127.0.0.1:2,127.0.0.1:40000",
            "shardwise.router=compat",
            "shardwise.compat.mode=twemproxy:fnv1a_64:ketama",
            "shardwise.codec=utf8");
  }

  @Test
  void aFleetOfTwoWritersPrintsNoConfigurationAndNamesBoth() {
    RouterSpec spy = compat("spymemcached:array_mod:native_hash");
    RouterSpec twem = compat("twemproxy:fnv1a_64:ketama");
    Report r = report(placedBy(twem, "b:", 5_000, placedBy(spy, "a:", 5_000, empty())));

    assertThat(r.status()).isEqualTo(DetectReport.NOT_FOUND);
    assertThat(r.properties()).isEmpty();
    assertThat(r.text()).contains("No configuration is printed");
    String writers = r.text().lines().filter(l -> l.startsWith("  1. several writers: ")).findFirst().orElseThrow();
    assertThat(writers).containsPattern("compat (spymemcached:array_mod|xmemcached:array):native_hash places");
    assertThat(writers).containsPattern("compat (twemproxy|libmemcached):fnv1a_64:(ketama|consistent_weighted) places");
    assertThat(writers).contains("; together 100.00%");
  }

  @Test
  void aWrongServerOrderIsFoundAndTheRightOneProposed() {
    List<Node> clients = List.of(NODES.get(2), NODES.get(0), NODES.get(3), NODES.get(1));
    Report r = report(placedBy(compat("libmemcached:default:modula"), HashTag.NONE, clients, "k:", 4_000, empty()));

    assertThat(r.status()).isEqualTo(DetectReport.NOT_FOUND);
    assertThat(r.text()).contains("1. server order: with the servers in the order "
        + "127.0.0.1:2,127.0.0.1:11211,127.0.0.1:40000,127.0.0.1:11212, compat libmemcached:default:modula places"
        + " 100.00% of the keys: run detect again with --servers 127.0.0.1:2,127.0.0.1:11211,127.0.0.1:40000,"
        + "127.0.0.1:11212");
  }

  @Test
  void missingTwemproxyNamesShowAsARenaming() {
    List<Node> clients = ServerList.parse("zeta=127.0.0.1:11211,b=127.0.0.1:11212,alpha=127.0.0.1:2,cc=127.0.0.1:40000");
    Report r = report(placedBy(compat("twemproxy:crc32a:modula"), HashTag.NONE, clients, "k:", 4_000, empty()));

    assertThat(r.status()).isEqualTo(DetectReport.NOT_FOUND);
    assertThat(r.text()).containsPattern("1\\. server names: compat twemproxy:crc32a:modula places 100\\.00% of the"
        + " keys if the servers are renamed one for one: the keys it puts on 127\\.0\\.0\\.1:\\d+ are on");
    assertThat(r.text()).contains("2. server order:");
  }

  @Test
  void aHashTagOtherThanBracesIsTriedWhenTheKeysHaveOne() {
    List<List<byte[]>> keys =
        placedBy(compat("twemproxy:murmur:ketama"), HashTag.of("[]"), NODES, "[user:", "]:cart", 3_000, empty());
    Report r = report(keys);
    assertThat(r.share("compat twemproxy:murmur:ketama (hash tag [])")).isEqualTo(100.0);
  }

  @Test
  void aDegenerateSampleIsFlagged() {
    List<List<byte[]>> keys = empty();
    for (int i = 0; i < 1_000; i++) {
      keys.get(0).add(("k" + i).getBytes(StandardCharsets.UTF_8));
    }
    keys.get(1).add("x".getBytes(StandardCharsets.UTF_8));
    Report r = report(keys);
    assertThat(r.text()).contains("warning: 127.0.0.1:11211 holds 1000 of the 1001 sampled keys (99.90%)");
    assertThat(r.status()).isEqualTo(DetectReport.NOT_FOUND);
  }

  @Test
  void keysOfAFormerListAreFoundAsAResize() {
    RouterSpec spec = compat("twemproxy:fnv1a_64:ketama");
    Report r = report(placedBy(spec, HashTag.NONE, NODES, "new:", 3_000,
        placedBy(spec, HashTag.NONE, NODES.subList(0, 3), "old:", 3_000, empty())), Writer.TWEMPROXY, ValueSample.NONE);
    assertThat(r.status()).isEqualTo(DetectReport.NOT_FOUND);
    assertThat(r.text()).contains("compat twemproxy:fnv1a_64:ketama on the list without 127.0.0.1:40000 (keys written"
        + " before it was added) places");
  }

  @Test
  void aFewStrayKeysAreShownWithExamples() {
    List<List<byte[]>> keys = placedBy(compat("twemproxy:fnv1a_64:ketama"), "k:", 3_000, empty());
    byte[] stray = keys.get(0).remove(0);
    keys.get(1).add(stray);
    Report r = report(keys, Writer.TWEMPROXY, ValueSample.NONE);
    assertThat(r.status()).isEqualTo(DetectReport.NOT_FOUND);
    assertThat(r.text()).contains("1. stray keys: compat twemproxy:fnv1a_64:ketama misses only 1 keys, e.g. '"
        + new String(stray, StandardCharsets.UTF_8) + "' on 127.0.0.1:11212 (it puts it on 127.0.0.1:11211)");
  }

  @Test
  void metadumpKeysAreUriDecoded() {
    assertThat(new String(KeySampler.uriDecode("user%3A42%20x%C3%A9"), StandardCharsets.UTF_8))
        .isEqualTo("user:42 x\u00e9");
    assertThat(KeySampler.uriDecode("plain-key_1.2~")).isEqualTo("plain-key_1.2~".getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void aTieCutByTopIsCountedAndTheTopThatListsItNamed() {
    // Two modes ahead, then eight tied at 59.60% of 500 keys, then one below.
    List<RouterSpec> specs = Detection.candidates(false, null);
    int[] hits = {400, 350, 298, 298, 298, 298, 298, 298, 298, 298, 100};
    List<Detection.Score> scores = new ArrayList<>();
    for (int i = 0; i < hits.length; i++) {
      scores.add(new Detection.Score(specs.get(i), HashTag.NONE, null, hits[i], 0, 500));
    }
    StringWriter text = new StringWriter();
    DetectReport.belowEveryKey(scores, 5, new PrintWriter(text, true));
    List<String> lines = text.toString().lines().toList();
    assertThat(lines).hasSize(6);
    assertThat(lines.subList(2, 5)).allSatisfy(l -> assertThat(l).contains("59.60%"));
    assertThat(lines.get(5).trim())
        .isEqualTo("... and 5 more modes at 59.60%, tied with the last (cut by --top 5; --top 10 lists them)");

    StringWriter whole = new StringWriter();
    DetectReport.belowEveryKey(scores, 10, new PrintWriter(whole, true));
    assertThat(whole.toString().lines()).hasSize(10).noneMatch(l -> l.contains("more modes"));
    StringWriter beforeTheTie = new StringWriter();
    DetectReport.belowEveryKey(scores, 2, new PrintWriter(beforeTheTie, true));
    assertThat(beforeTheTie.toString().lines()).hasSize(2);
  }
}
