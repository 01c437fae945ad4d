package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every libmemcached mode against key-to-server vectors produced by the real libmemcached 1.1.4
 * (see {@code peer-vectors/libmemcached/README.md}).
 */
class LibmemcachedVectorsTest {

  private static final Path DIR = Path.of("src/test/resources/peer-vectors/libmemcached");

  /**
   * The orders of libmemcached calls in {@code orders.tsv} and the mode each gives: the table of
   * {@code docs/migration.md}.
   */
  private static final Map<String, String> ORDERS = new LinkedHashMap<>();

  static {
    ORDERS.put("servers ketama=1", "libmemcached:default:consistent");
    ORDERS.put("servers ketama=1 hash=fnv1a_32", "libmemcached:fnv1a_32:consistent:points=default");
    ORDERS.put("servers distribution=consistent hash=jenkins", "libmemcached:jenkins:consistent:points=default");
    ORDERS.put("hash=fnv1a_32 servers ketama=1", "libmemcached:fnv1a_32:consistent");
    ORDERS.put("servers hash=fnv1a_32 ketama=1", "libmemcached:fnv1a_32:consistent");
    ORDERS.put("ketama=1 hash=fnv1a_32 servers", "libmemcached:fnv1a_32:consistent");
    ORDERS.put("hash=md5 servers ketama=1 hash=murmur", "libmemcached:murmur:consistent:points=md5");
    ORDERS.put("servers ketama=1 hash=jenkins clone", "libmemcached:jenkins:consistent");
    ORDERS.put("servers ketama=1 hash=jenkins distribution=consistent", "libmemcached:jenkins:consistent");
    ORDERS.put("servers:1-4 ketama=1 hash=murmur3 servers:5", "libmemcached:murmur3:consistent");
    ORDERS.put("servers ketama=1 hash=fnv1a_32 ketama=0", "libmemcached:fnv1a_32:modula");
    ORDERS.put("servers hash=crc", "libmemcached:crc:modula");
    ORDERS.put("weighted ketama_weighted=1", "libmemcached:md5:consistent_weighted");
    ORDERS.put("weighted ketama_weighted=1 hash=murmur", "libmemcached:murmur:consistent_weighted");
  }

  // Their addresses are input data of published libmemcached vectors; never connected to.
  private static List<Node> servers(String file) throws IOException {
    return ServerList.parse(String.join(",", Files.readAllLines(DIR.resolve(file))));
  }

  /** Checks every column of {@code file}, the column's header naming its mode through {@code mode}. */
  private static int checkColumns(String file, java.util.function.Function<String, String> mode) throws IOException {
    List<Node> plain = servers("servers");
    List<Node> weighted = servers("weighted.servers");
    List<String> rows = Files.readAllLines(DIR.resolve(file), StandardCharsets.UTF_8);
    String[] columns = rows.get(0).split("\t");
    for (int c = 1; c < columns.length; c++) {
      String m = mode.apply(columns[c]);
      boolean weights = m.endsWith("consistent_weighted");
      PeerRouter router = PeerRouter.create(weights ? weighted : plain, m);
      for (String row : rows.subList(1, rows.size())) {
        String[] cells = row.split("\t");
        assertThat(router.primary(cells[0]))
            .as("%s (%s) %s", m, columns[c], cells[0])
            .isEqualTo(Integer.parseInt(cells[c]));
      }
    }
    return columns.length - 1;
  }

  @Test
  void everyHashAndDistributionPlacesEveryKeyAsLibmemcachedDoes() throws IOException {
    assertThat(checkColumns("libmemcached.tsv", column -> "libmemcached:" + column)).isEqualTo(30);
  }

  @Test
  void aKeyHashSetAfterTheContinuumKeepsThePointsOfTheEarlierHash() throws IOException {
    // 10 hashes, each as key hash with each of the 9 others as the continuum's hash
    assertThat(checkColumns("late-hash.tsv", column -> "libmemcached:" + column)).isEqualTo(90);
  }

  @Test
  void eachCallOrderGivesTheModeTheMigrationGuideNames() throws IOException {
    String header = Files.readAllLines(DIR.resolve("orders.tsv"), StandardCharsets.UTF_8).get(0);
    assertThat(header.substring(header.indexOf('\t') + 1).split("\t")).containsExactlyElementsOf(ORDERS.keySet());
    assertThat(checkColumns("orders.tsv", ORDERS::get)).isEqualTo(ORDERS.size());
  }

  @Test
  void aContinuumHashEqualToTheKeyHashIsThePlainConsistentMode() {
    PeerMode same = PeerMode.of("libmemcached:Jenkins:consistent:points=jenkins");
    assertThat(same).isEqualTo(PeerMode.of("libmemcached:jenkins:consistent"));
    assertThat(same.id()).isEqualTo("libmemcached:jenkins:consistent");
    assertThat(PeerMode.of("libmemcached:fnv1a_32:consistent:points=default").id())
        .isEqualTo("libmemcached:fnv1a_32:consistent:points=default");
    assertThat(PeerMode.all(false)).contains(PeerMode.of("libmemcached:fnv1a_32:consistent:points=default"));
    assertThat(PeerMode.all(true)).doesNotContain(PeerMode.of("libmemcached:fnv1a_32:consistent:points=default"));
  }
}
