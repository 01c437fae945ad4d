package io.shardwise.cli;

import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.List;

/** The keys sampled on each server of a list, in one array: what {@code detect} scores modes on. */
final class Sample {

  private final List<Node> nodes;
  private final byte[][] keys;
  /** {@code server[i]}: the index in {@link #nodes} of the server {@code keys[i]} was found on. */
  private final int[] server;
  private final int[] perServer;

  /** @param found {@code found.get(i)}: the keys found on {@code nodes.get(i)} */
  Sample(List<Node> nodes, List<List<byte[]>> found) {
    if (found.size() != nodes.size()) {
      throw new IllegalArgumentException(nodes.size() + " servers but keys of " + found.size());
    }
    this.nodes = List.copyOf(nodes);
    int total = 0;
    for (List<byte[]> k : found) {
      total += k.size();
    }
    this.keys = new byte[total][];
    this.server = new int[total];
    this.perServer = new int[nodes.size()];
    int i = 0;
    for (int s = 0; s < found.size(); s++) {
      for (byte[] key : found.get(s)) {
        keys[i] = key;
        server[i++] = s;
      }
      perServer[s] = found.get(s).size();
    }
  }

  List<Node> nodes() {
    return nodes;
  }

  /** Keys in the sample. */
  int size() {
    return keys.length;
  }

  byte[] key(int i) {
    return keys[i];
  }

  /** The index of the server key {@code i} was found on. */
  int server(int i) {
    return server[i];
  }

  /** Keys found on server {@code s}. */
  int count(int s) {
    return perServer[s];
  }

  /** Where {@code router} puts each sampled key: indexes into the router's own server list. */
  int[] placements(Router router, HashTag tag) {
    int[] placed = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      placed[i] = router.primary(tag.hash(router.hasher(), keys[i]));
    }
    return placed;
  }

  /**
   * For each server p of the list, the server the keys {@code placed} on p mostly sit on ({@code
   * -1} when no key is placed on p).
   */
  int[] mostlyOn(int[] placed) {
    int n = nodes.size();
    int[][] counts = new int[n][n];
    for (int i = 0; i < keys.length; i++) {
      counts[placed[i]][server[i]]++;
    }
    int[] mapping = new int[n];
    for (int p = 0; p < n; p++) {
      int best = p;
      for (int a = 0; a < n; a++) {
        if (counts[p][a] > counts[p][best]) {
          best = a;
        }
      }
      mapping[p] = counts[p][best] == 0 ? -1 : best;
    }
    return mapping;
  }

  /**
   * How many keys sit where {@code placed} puts them once the list's servers are relabeled by
   * {@code mapping} ({@link #mostlyOn}); 0 unless the relabeling is one for one and not the
   * identity.
   */
  int relabeledHits(int[] placed, int[] mapping) {
    boolean[] taken = new boolean[nodes.size()];
    boolean identity = true;
    for (int p = 0; p < mapping.length; p++) {
      if (mapping[p] >= 0) {
        if (taken[mapping[p]]) {
          return 0;
        }
        taken[mapping[p]] = true;
        identity &= mapping[p] == p;
      }
    }
    if (identity) {
      return 0;
    }
    int hits = 0;
    for (int i = 0; i < keys.length; i++) {
      if (mapping[placed[i]] == server[i]) {
        hits++;
      }
    }
    return hits;
  }

  /** How many keys sit where {@code placed} (indexes into this sample's list) puts them. */
  int hits(int[] placed) {
    int hits = 0;
    for (int i = 0; i < keys.length; i++) {
      if (placed[i] == server[i]) {
        hits++;
      }
    }
    return hits;
  }
}
