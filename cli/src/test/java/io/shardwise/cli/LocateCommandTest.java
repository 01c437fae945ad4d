package io.shardwise.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.core.RouterSpec;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LocateCommandTest {

  /** The shared golden vectors, kept with the ketama module's tests. */
  private static final Path VECTORS = Path.of("../ring-ketama/src/test/resources/ketama-vectors");

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return ShardwiseCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "w4, libketama, libketama",
    "w4, libmemcached, libmemcached.weighted",
    "w4, twemproxy, twemproxy.plain",
    "w4, spymemcached-weighted, spymemcached.weighted",
    "l5, spymemcached, spymemcached.default"
  })
  void printsTheGoldenServerForEveryKey(String list, String compat, String column) throws IOException {
    List<String> rows = Files.readAllLines(VECTORS.resolve(list + ".tsv"));
    int col = List.of(rows.get(0).split("\t")).indexOf(column);
    List<String> keys = new ArrayList<>();
    StringBuilder expected = new StringBuilder();
    for (String row : rows.subList(1, rows.size())) {
      String[] cells = row.split("\t");
      keys.add(cells[0]);
      expected.append(cells[0]).append('\t').append(cells[col]).append('\n');
    }
    Path keysFile = Files.write(dir.resolve("keys"), keys, StandardCharsets.UTF_8);
    int code =
        run("locate", "--router", "ketama", "--compat", compat,
            "--servers-file", VECTORS.resolve(list + ".servers").toString(),
            "--keys-file", keysFile.toString());
    assertThat(err.toString()).isEmpty();
    assertThat(code).isZero();
    assertThat(out.toString()).isEqualTo(expected.toString());
  }

  @Test
  void everyRouterIsReachableAndKeysAreTakenAsTheyAre() throws IOException {
    Path keys = dir.resolve("keys");
    Files.writeString(keys, " spaced key \r\n\nünïcode\nlast-without-newline", StandardCharsets.UTF_8);
    for (String router : new String[] {"ring", "ketama", "hrw", "jump", "multiprobe", "maglev", "modulo"}) {
      out.getBuffer().setLength(0);
      int code =
          run("locate", "--router", router, "--servers", "a:1,b:2,c:3",
              "--keys-file", keys.toString(), "--table-size", "101", "--probes", "5", "--points", "50");
      assertThat(code).as(router + ": " + err).isZero();
      String[] lines = out.toString().split("\n", -1);
      assertThat(lines).hasSize(5);
      assertThat(lines[0]).startsWith(" spaced key \t");
      assertThat(lines[1]).matches("\t[abc]:[123]");
      assertThat(lines[2]).startsWith("ünïcode\t");
      assertThat(lines[3]).startsWith("last-without-newline\t");
    }
  }

  /** Every router, and the compat router in a ketama and a modula mode. */
  private static final List<String[]> ROUTERS =
      List.of(
          new String[] {"--router", "ring"},
          new String[] {"--router", "ketama", "--compat", "libketama"},
          new String[] {"--router", "ketama", "--compat", "spymemcached"},
          new String[] {"--router", "hrw"},
          new String[] {"--router", "jump"},
          new String[] {"--router", "multiprobe"},
          new String[] {"--router", "maglev"},
          new String[] {"--router", "modulo"},
          new String[] {"--router", "compat", "--compat-mode", "twemproxy:fnv1a_64:ketama"},
          new String[] {"--router", "compat", "--compat-mode", "twemproxy:md5:modula"});

  private String locate(String[] router, String servers, Path keys, String... more) {
    out.getBuffer().setLength(0);
    List<String> args = new ArrayList<>(List.of("locate", "--servers", servers, "--keys-file", keys.toString()));
    args.addAll(List.of(router));
    args.addAll(List.of(more));
    int code = run(args.toArray(String[]::new));
    assertThat(err.toString()).isEmpty();
    assertThat(code).isZero();
    return out.toString();
  }

  @Test
  void replicasPrintTheFirstNServersOfEachKeysPreferenceOrderPrimaryFirst() throws IOException {
    String servers = "127.0.0.1:11211,127.0.0.1:11212,127.0.0.1:11213,127.0.0.1:11214,127.0.0.1:11215";
    List<Node> nodes = ServerList.parse(servers);
    List<String> keys = IntStream.range(0, 500).mapToObj(i -> "key:" + i).collect(Collectors.toList());
    Path keysFile = Files.write(dir.resolve("keys"), keys, StandardCharsets.UTF_8);
    for (String[] router : ROUTERS) {
      String label = String.join(" ", router);
      String primaries = locate(router, servers, keysFile);
      assertThat(locate(router, servers, keysFile, "--replicas", "1")).as(label).isEqualTo(primaries);
      RouterSpec spec = RouterSpec.of(router[1]);
      if (router[1].equals("ketama")) {
        spec = spec.withKetamaCompatibility(router[3]);
      } else if (router[1].equals("compat")) {
        spec = spec.withCompatMode(router[3]);
      }
      Router r = spec.build(nodes);
      String[] primaryLines = primaries.split("\n");
      for (int n : new int[] {2, 3, 5}) {
        String[] lines = locate(router, servers, keysFile, "--replicas", Integer.toString(n)).split("\n");
        assertThat(lines).as(label).hasSize(keys.size());
        int[] replicas = new int[n];
        for (int k = 0; k < keys.size(); k++) {
          String[] cells = lines[k].split("\t");
          assertThat(cells).as(label).hasSize(n + 1);
          assertThat(cells[0] + "\t" + cells[1]).as(label).isEqualTo(primaryLines[k]);
          assertThat(Arrays.copyOfRange(cells, 1, n + 1)).as(label).doesNotHaveDuplicates();
          r.replicas(r.hasher().hash(keys.get(k)), n, replicas);
          for (int i = 0; i < n; i++) {
            assertThat(cells[i + 1]).as("%s key %s replica %d", label, keys.get(k), i)
                .isEqualTo(nodes.get(replicas[i]).address());
          }
        }
      }
    }
  }

  @Test
  void badInputIsOneLineOnStderrAndExitCode2() {
    assertThat(run("locate", "--servers", "a:1,a:1", "--keys-file", "x")).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo("shardwise: server list must not name a server twice but a:1 is entry 1 and entry 2\n");
    assertRejected("shardwise: unknown router 'chord'; expected one of ketama, ring, hrw, jump, multiprobe, maglev, modulo, compat\n",
        "locate", "--router", "chord", "--servers", "a:1");
    assertRejected("shardwise: unknown ketama compatibility mode 'memcachedb'; expected one of libketama, libmemcached, twemproxy, spymemcached, spymemcached-weighted\n",
        "locate", "--compat", "memcachedb", "--servers", "a:1");
    assertRejected("shardwise: server entry 'a:99999': port must be in 1..65535 but was 99999\n",
        "locate", "--servers", "a:99999");
    assertRejected("shardwise: multiprobe probes must be >= 1 but was 0\n",
        "locate", "--router", "multiprobe", "--probes", "0", "--servers", "a:1");
    assertRejected("shardwise: no such file: /nonexistent/servers\n",
        "locate", "--servers-file", "/nonexistent/servers");
    assertRejected("shardwise: --replicas must be >= 1 but was 0\n",
        "locate", "--replicas", "0", "--servers", "a:1");
    assertRejected("shardwise: --replicas must be >= 1 but was -2\n",
        "locate", "--replicas", "-2", "--servers", "a:1");
    assertRejected("shardwise: --replicas must be at most the number of servers, 3, but was 4\n",
        "locate", "--replicas", "4", "--servers", "a:1,b:2,c:3");
    assertRejected("shardwise: Invalid value for option '--replicas': 'two' is not an int\n",
        "locate", "--replicas", "two", "--servers", "a:1");
  }

  private void assertRejected(String message, String... args) {
    err.getBuffer().setLength(0);
    assertThat(run(args)).isEqualTo(2);
    assertThat(err.toString()).isEqualTo(message);
  }
}
