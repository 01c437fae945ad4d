package io.shardwise.cli;

import io.shardwise.core.RouterSpec;
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
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code shardwise detect}: finds the placement an existing fleet was written with. It samples
 * the keys each server holds (memcached {@code lru_crawler metadump all}, Redis {@code SCAN}) and
 * a few values, scores every mode Shardwise supports by the share of keys sitting on the server
 * the mode names, and prints what {@link DetectReport} says: the modes at 100% by client, and a
 * configuration to copy, the question which client wrote the fleet, or what to check. Read-only.
 */
@Command(
    name = "detect",
    mixinStandardHelpOptions = true,
    description = {
      "Find which placement (client, locator, hash) wrote the keys already on a fleet.",
      "Samples key names on every server (memcached: lru_crawler metadump all; Redis: SCAN) and a few"
          + " values, never writes or deletes, and scores every mode by the share of sampled keys it places"
          + " where they are. Lists the modes that place every key, grouped by the client that uses them,"
          + " and how they part after a change of the server list; prints the shardwise.* configuration"
          + " (backend, servers, router, hash tag, a codec that reads the sampled values) when they are one"
          + " client's, or what to check when no mode places every key."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:a configuration was printed: one client's mode places every sampled key",
      "1:no key on any server",
      "2:bad input, or a server could not be read",
      "3:no mode places every sampled key: no configuration, hints printed",
      "4:modes of several clients place every key (or there is one server): run again with --writer"
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

    @Option(
        names = "--servers-file",
        description = "File with the server list: one entry per line (or comma-separated), # comments;"
            + " also host:port weight (libketama) and host:port:weight name (nutcracker).")
    Path file;
  }

  @Option(names = "--sample", defaultValue = "5000", description = "Keys read per server at most (default: ${DEFAULT-VALUE}).")
  int sample;

  @Option(
      names = "--values",
      defaultValue = "10",
      description = "Values read per server to propose a codec, 0 for none (default: ${DEFAULT-VALUE}).")
  int values;

  @Option(names = "--top", defaultValue = "5", description = "Modes below 100%% to print (default: ${DEFAULT-VALUE}); a tie cut by it is counted.")
  int top;

  @Option(
      names = "--hash-tag",
      description = "Score with this hash tag only, e.g. {}. Default: without one, and also with each of"
          + " {} [] () <> that sampled keys contain.")
  String hashTag;

  @Option(
      names = "--writer",
      description = "Consider only the modes of this client: twemproxy, libmemcached, spymemcached,"
          + " xmemcached, jedis, libketama or shardwise.")
  String writer;

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
    if (values < 0) {
      throw new IllegalArgumentException("--values must be >= 0 but was " + values);
    }
    if (top < 0) {
      throw new IllegalArgumentException("--top must be >= 0 but was " + top);
    }
    if (timeoutMillis < 1) {
      throw new IllegalArgumentException("--timeout must be >= 1 ms but was " + timeoutMillis);
    }
    boolean redis = kind.equals("redis");
    Writer only = writer == null ? null : Writer.of(writer);
    List<RouterSpec> candidates = Detection.candidates(redis, only);
    if (candidates.isEmpty()) {
      throw new IllegalArgumentException("--writer " + only.id() + " has no mode for " + kind + "; for " + kind
          + " detect knows " + Detection.candidates(redis, null).stream().map(Writer::of).distinct()
              .map(Writer::id).collect(Collectors.joining(", ")));
    }
    String serverText =
        servers.inline != null ? servers.inline : Files.readString(servers.file, StandardCharsets.UTF_8);
    List<Node> nodes = ServerList.parse(serverText);
    Duration timeout = Duration.ofMillis(timeoutMillis);

    List<List<byte[]>> keys = new ArrayList<>();
    ValueSample read = ValueSample.NONE;
    for (Node node : nodes) {
      List<byte[]> found = KeySampler.sample(node, redis, sample, timeout);
      keys.add(found);
      if (values > 0) {
        read = read.plus(KeySampler.values(node, redis, found, values, timeout));
      }
    }
    Sample sampled = new Sample(nodes, keys);
    List<HashTag> tags = new ArrayList<>();
    if (hashTag != null) {
      tags.add(HashTag.of(hashTag));
    } else {
      tags.add(HashTag.NONE);
      tags.addAll(Hints.tags(sampled));
    }
    List<Detection.Score> scores =
        sampled.size() == 0 ? List.of() : Detection.score(sampled, candidates, tags);
    PrintWriter out = spec.commandLine().getOut();
    int status = DetectReport.write(new DetectReport.Request(kind, nodes, only, top, tags), sampled, scores, read, out);
    out.flush();
    return status;
  }
}
