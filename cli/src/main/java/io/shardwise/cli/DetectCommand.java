package io.shardwise.cli;

import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code shardwise detect}: finds the placement an existing fleet was written with. It samples
 * the keys each server holds (memcached {@code lru_crawler metadump all}, Redis {@code SCAN}),
 * scores every mode Shardwise supports by the share of keys sitting on the server the mode names,
 * prints the best ones and the {@code shardwise.*} properties of the best. Read-only.
 */
@Command(
    name = "detect",
    mixinStandardHelpOptions = true,
    description = {
      "Find which placement (client, locator, hash) wrote the keys already on a fleet.",
      "Samples key names on every server (memcached: lru_crawler metadump all; Redis: SCAN), never"
          + " writes, deletes or reads a value, and prints the modes that place the most sampled keys"
          + " where they are, then the shardwise.* properties of the best."
    })
final class DetectCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--backend", required = true, description = "memcached or redis.")
  String backend;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Servers servers;

  static final class Servers {
    @Option(
        names = "--servers",
        description = "Server list in the order the existing clients use: host:port[:weight] or"
            + " name=host:port[:weight], comma-separated.")
    String inline;

    @Option(names = "--servers-file", description = "File with one server entry per line; # comments.")
    Path file;
  }

  @Option(names = "--sample", defaultValue = "5000", description = "Keys read per server at most (default: ${DEFAULT-VALUE}).")
  int sample;

  @Option(names = "--top", defaultValue = "5", description = "Modes to print (default: ${DEFAULT-VALUE}).")
  int top;

  @Option(
      names = "--hash-tag",
      description = "Score with this hash tag only, e.g. {}. Default: without one, and also with {} when"
          + " sampled keys contain braces.")
  String hashTag;

  @Option(names = "--timeout", defaultValue = "5000", description = "Connect and read timeout per server in ms (default: ${DEFAULT-VALUE}).")
  int timeoutMillis;

  @Override
  public Integer call() throws IOException {
    String kind = backend.strip().toLowerCase(Locale.ROOT);
    if (!kind.equals("memcached") && !kind.equals("redis")) {
      throw new IllegalArgumentException("--backend must be memcached or redis but was '" + backend + "'");
    }
    if (sample < 1) {
      throw new IllegalArgumentException("--sample must be >= 1 but was " + sample);
    }
    if (top < 1) {
      throw new IllegalArgumentException("--top must be >= 1 but was " + top);
    }
    if (timeoutMillis < 1) {
      throw new IllegalArgumentException("--timeout must be >= 1 ms but was " + timeoutMillis);
    }
    boolean redis = kind.equals("redis");
    String serverText =
        servers.inline != null ? servers.inline : Files.readString(servers.file, StandardCharsets.UTF_8);
    List<Node> nodes = ServerList.parse(serverText);

    List<List<byte[]>> keys = new ArrayList<>();
    int total = 0;
    boolean braces = false;
    for (Node node : nodes) {
      List<byte[]> found = KeySampler.sample(node, redis, sample, Duration.ofMillis(timeoutMillis));
      keys.add(found);
      total += found.size();
      HashTag braced = HashTag.of("{}");
      for (byte[] key : found) {
        String k = new String(key, StandardCharsets.UTF_8);
        braces |= !braced.routingKey(k).equals(k);
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    StringBuilder perServer = new StringBuilder();
    for (int i = 0; i < nodes.size(); i++) {
      perServer.append(i == 0 ? "" : ", ").append(keys.get(i).size()).append(" on ").append(nodes.get(i).address());
    }
    out.println("sampled " + total + " keys: " + perServer);
    if (total == 0) {
      out.println("no keys on these servers: nothing to detect");
      out.flush();
      return 1;
    }
    List<HashTag> tags = new ArrayList<>();
    if (hashTag != null) {
      tags.add(HashTag.of(hashTag));
    } else {
      tags.add(HashTag.NONE);
      if (braces) {
        tags.add(HashTag.of("{}"));
      }
    }
    List<Detection.Score> scores = Detection.score(nodes, keys, Detection.candidates(redis), tags);
    out.println();
    out.println("   share     keys  mode");
    for (int i = 0; i < Math.min(top, scores.size()); i++) {
      Detection.Score s = scores.get(i);
      out.printf(Locale.ROOT, "%7.2f%%  %7d  %s%n", 100.0 * s.share(), s.hits(), s.name());
    }
    Detection.Score best = scores.get(0);
    long tied = scores.stream().filter(s -> s.hits() == best.hits()).count();
    out.println();
    if (tied > 1) {
      out.println(tied + " modes place the sampled keys equally well (for some server lists two modes"
          + " are the same placement); the first is shown. The clients' configuration, or more keys"
          + " (--sample), tells them apart.");
    }
    if (best.hits() < total) {
      out.println("No mode places every sampled key: the fleet was written by several placements or"
          + " server lists (a resize, a migration), or by one Shardwise does not reproduce.");
    }
    out.println("best: " + best.name());
    for (Map.Entry<String, String> p : best.properties().entrySet()) {
      out.println(p.getKey() + "=" + p.getValue());
    }
    out.flush();
    return 0;
  }
}
