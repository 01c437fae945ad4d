package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every libmemcached mode against key-to-server vectors produced by the real libmemcached 1.1.4
 * (see {@code peer-vectors/libmemcached/README.md}).
 */
class LibmemcachedVectorsTest {

  private static final Path DIR = Path.of("src/test/resources/peer-vectors/libmemcached");

  private static List<Node> servers(String file) throws IOException {
    return ServerList.parse(String.join(",", Files.readAllLines(DIR.resolve(file))));
  }

  @Test
  void everyHashAndDistributionPlacesEveryKeyAsLibmemcachedDoes() throws IOException {
    List<Node> plain = servers("servers");
    List<Node> weighted = servers("weighted.servers");
    List<String> rows = Files.readAllLines(DIR.resolve("libmemcached.tsv"), StandardCharsets.UTF_8);
    String[] columns = rows.get(0).split("\t");
    assertThat(columns).hasSize(31);
    for (int c = 1; c < columns.length; c++) {
      String mode = "libmemcached:" + columns[c];
      PeerRouter router =
          PeerRouter.create(mode.endsWith("consistent_weighted") ? weighted : plain, mode);
      for (String row : rows.subList(1, rows.size())) {
        String[] cells = row.split("\t");
        assertThat(router.primary(cells[0])).as("%s %s", mode, cells[0]).isEqualTo(Integer.parseInt(cells[c]));
      }
    }
  }
}
