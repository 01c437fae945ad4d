package io.shardwise.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.core.RouterSpec;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DetectionTest {

  private static final List<Node> NODES =
      ServerList.parse("127.0.0.1:11211,127.0.0.1:11212,127.0.0.1:2,127.0.0.1:40000");

  /** The keys as the fleet would hold them had {@code spec} written them. */
  private static List<List<byte[]>> placedBy(RouterSpec spec, String prefix, int count, List<List<byte[]>> into) {
    Router router = spec.build(NODES);
    SplittableRandom random = new SplittableRandom(prefix.hashCode());
    for (int i = 0; i < count; i++) {
      byte[] key = (prefix + random.nextLong()).getBytes(StandardCharsets.UTF_8);
      into.get(router.primary(router.hasher().hash(key))).add(key);
    }
    return into;
  }

  private static List<List<byte[]>> empty() {
    List<List<byte[]>> keys = new ArrayList<>();
    for (int i = 0; i < NODES.size(); i++) {
      keys.add(new ArrayList<>());
    }
    return keys;
  }

  @Test
  void everyCandidateFindsItselfAtFullShare() {
    for (RouterSpec spec : Detection.candidates(false)) {
      List<List<byte[]>> keys = placedBy(spec, "k:", 500, empty());
      List<Detection.Score> scores = Detection.score(NODES, keys, List.of(spec), List.of(HashTag.NONE));
      assertThat(scores.get(0).share()).as(spec.toString()).isEqualTo(1.0);
    }
  }

  @Test
  void theWriterRanksFirstAndAMixedFleetShowsBothShares() {
    RouterSpec a = RouterSpec.of("compat").withCompatMode("twemproxy:fnv1a_64:ketama");
    RouterSpec b = RouterSpec.of("compat").withCompatMode("twemproxy:murmur:modula");
    List<Detection.Score> one =
        Detection.score(NODES, placedBy(a, "k:", 5_000, empty()), Detection.candidates(false), List.of(HashTag.NONE));
    assertThat(one.get(0).spec()).isEqualTo(a);
    // libmemcached's weighted continuum with the same hash is the same placement as twemproxy's.
    assertThat(one.stream().filter(s -> s.share() == 1.0).map(Detection.Score::spec))
        .containsExactly(a, RouterSpec.of("compat").withCompatMode("libmemcached:fnv1a_64:consistent_weighted"));
    assertThat(one.get(2).share()).isLessThan(0.5);
    assertThat(one.get(0).properties())
        .containsExactly(
            java.util.Map.entry("shardwise.router", "compat"),
            java.util.Map.entry("shardwise.compat.mode", "twemproxy:fnv1a_64:ketama"));

    List<List<byte[]>> mixed = placedBy(b, "b:", 5_000, placedBy(a, "a:", 5_000, empty()));
    List<Detection.Score> two = Detection.score(NODES, mixed, Detection.candidates(false), List.of(HashTag.NONE));
    List<RouterSpec> firstTwo = List.of(two.get(0).spec(), two.get(1).spec());
    assertThat(firstTwo).containsExactlyInAnyOrder(a, b);
    assertThat(two.get(0).share()).isBetween(0.55, 0.70); // its half and about a quarter of the other
    assertThat(two.get(1).share()).isBetween(0.55, 0.70);
  }

  @Test
  void metadumpKeysAreUriDecoded() {
    assertThat(new String(KeySampler.uriDecode("user%3A42%20x%C3%A9"), StandardCharsets.UTF_8))
        .isEqualTo("user:42 x\u00e9");
    assertThat(KeySampler.uriDecode("plain-key_1.2~")).isEqualTo("plain-key_1.2~".getBytes(StandardCharsets.US_ASCII));
  }
}
