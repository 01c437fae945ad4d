package io.shardwise.cli;

import io.shardwise.core.RouterSpec;
import io.shardwise.ketama.PeerMode;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which placement a fleet's keys follow: for every mode Shardwise supports, the share of sampled
 * keys that sit on the server the mode names for them. Pure: it takes the keys found on each
 * server and the server list.
 */
final class Detection {

  /** One mode's score. */
  record Score(RouterSpec spec, HashTag tag, int hits, int total) {

    double share() {
      return total == 0 ? 0 : (double) hits / total;
    }

    /** The configuration that selects this mode. */
    Map<String, String> properties() {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("shardwise.router", spec.type().id());
      switch (spec.type()) {
        case KETAMA:
          p.put("shardwise.ketama.compatibility", spec.ketamaCompatibility());
          break;
        case COMPAT:
          p.put("shardwise.compat.mode", spec.compatMode().id());
          break;
        default:
          break;
      }
      if (tag.isEnabled()) {
        p.put("shardwise.hash-tag", tag.toString());
      }
      return p;
    }

    String name() {
      String base;
      switch (spec.type()) {
        case KETAMA:
          base = "ketama " + spec.ketamaCompatibility();
          break;
        case COMPAT:
          base = "compat " + spec.compatMode().id();
          break;
        default:
          base = spec.type().id();
          break;
      }
      return tag.isEnabled() ? base + " (hash tag " + tag + ")" : base;
    }
  }

  private Detection() {}

  /** Every mode Shardwise can configure for this backend: ketama modes, its own routers, compat modes. */
  static List<RouterSpec> candidates(boolean redis) {
    List<RouterSpec> specs = new ArrayList<>();
    for (String mode : List.of("libketama", "libmemcached", "twemproxy", "spymemcached", "spymemcached-weighted")) {
      specs.add(RouterSpec.of(RouterSpec.Type.KETAMA).withKetamaCompatibility(mode));
    }
    for (RouterSpec.Type type : RouterSpec.Type.values()) {
      if (type != RouterSpec.Type.KETAMA && type != RouterSpec.Type.COMPAT) {
        specs.add(RouterSpec.of(type));
      }
    }
    for (PeerMode mode : PeerMode.all(redis)) {
      specs.add(RouterSpec.of(RouterSpec.Type.COMPAT).withCompatMode(mode.id()));
    }
    return specs;
  }

  /**
   * Scores every candidate on the sampled keys, best first (ties in candidate order). A candidate
   * that cannot route these servers (weights on a router without weights) is left out.
   *
   * @param keys {@code keys.get(i)}: the keys found on {@code nodes.get(i)}
   */
  static List<Score> score(List<Node> nodes, List<List<byte[]>> keys, List<RouterSpec> candidates, List<HashTag> tags) {
    int total = 0;
    for (List<byte[]> k : keys) {
      total += k.size();
    }
    List<Score> scores = new ArrayList<>();
    for (HashTag tag : tags) {
      for (RouterSpec spec : candidates) {
        Router router;
        try {
          router = spec.build(nodes);
        } catch (IllegalArgumentException e) {
          continue;
        }
        int hits = 0;
        for (int i = 0; i < keys.size(); i++) {
          for (byte[] key : keys.get(i)) {
            if (router.primary(tag.hash(router.hasher(), key)) == i) {
              hits++;
            }
          }
        }
        scores.add(new Score(spec, tag, hits, total));
      }
    }
    scores.sort(Comparator.comparingInt((Score s) -> -s.hits()));
    return scores;
  }
}
