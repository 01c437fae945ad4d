package io.shardwise.cli;

import io.shardwise.core.RouterSpec;
import io.shardwise.ketama.PeerMode;
import io.shardwise.routing.HashTag;
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

  /**
   * One mode's score, with the router it was scored with; {@code relabeled}: the keys it would
   * place with its servers relabeled one for one (0 if no such relabeling places more keys).
   */
  record Score(RouterSpec spec, HashTag tag, Router router, int hits, int relabeled, int total) {

    double share() {
      return total == 0 ? 0 : (double) hits / total;
    }

    /** Whether the mode places every sampled key where it was found. */
    boolean placesEveryKey() {
      return hits == total;
    }

    Writer writer() {
      return Writer.of(spec);
    }

    /** The {@code shardwise.*} properties that select this mode: router, mode, hash tag. */
    Map<String, String> routerProperties() {
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

  /**
   * Every mode Shardwise can configure for this backend, or only {@code writer}'s (all when
   * null): the compat modes first, as they name the peers' own settings, then the ketama modes,
   * then Shardwise's own routers. Within a writer the first mode is the one detect proposes.
   */
  static List<RouterSpec> candidates(boolean redis, Writer writer) {
    List<RouterSpec> specs = new ArrayList<>();
    for (PeerMode mode : PeerMode.all(redis)) {
      specs.add(RouterSpec.of(RouterSpec.Type.COMPAT).withCompatMode(mode.id()));
    }
    for (String mode : List.of("libketama", "libmemcached", "twemproxy", "spymemcached", "spymemcached-weighted")) {
      specs.add(RouterSpec.of(RouterSpec.Type.KETAMA).withKetamaCompatibility(mode));
    }
    for (RouterSpec.Type type : RouterSpec.Type.values()) {
      if (type != RouterSpec.Type.KETAMA && type != RouterSpec.Type.COMPAT) {
        specs.add(RouterSpec.of(type));
      }
    }
    if (writer != null) {
      specs.removeIf(s -> Writer.of(s) != writer);
    }
    return specs;
  }

  /**
   * Scores every candidate with every tag on the sample, best first (ties in candidate order,
   * then tag order). A candidate that cannot route these servers (weights on a router without
   * weights) is left out.
   */
  static List<Score> score(Sample sample, List<RouterSpec> candidates, List<HashTag> tags) {
    List<Score> scores = new ArrayList<>();
    for (RouterSpec spec : candidates) {
      Router router;
      try {
        router = spec.build(sample.nodes());
      } catch (IllegalArgumentException e) {
        continue;
      }
      for (HashTag tag : tags) {
        int[] placed = sample.placements(router, tag);
        scores.add(new Score(spec, tag, router, sample.hits(placed),
            sample.relabeledHits(placed, sample.mostlyOn(placed)), sample.size()));
      }
    }
    scores.sort(Comparator.comparingInt((Score s) -> -s.hits()));
    return scores;
  }
}
