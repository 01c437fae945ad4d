package io.shardwise.cli;

import io.shardwise.core.RouterSpec;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code shardwise locate}: which server holds each key. */
@Command(
    name = "locate",
    mixinStandardHelpOptions = true,
    description = {
      "Prints, for each key, the server the router sends it to: key<TAB>host:port; with"
          + " --replicas N, the key's N replicas, primary first: key<TAB>host:port<TAB>host:port...",
      "Keys are read one per line (UTF-8, taken as they are; a CR before the LF is dropped)",
      "from --keys-file, or from standard input."
    },
    sortOptions = false)
final class LocateCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--router",
      defaultValue = "ketama",
      description = "ring, ketama, hrw, jump, multiprobe, maglev, modulo or compat (default: ${DEFAULT-VALUE}).")
  String router;

  @Option(
      names = "--compat",
      defaultValue = "libketama",
      description =
          "Ketama compatibility: libketama, libmemcached, twemproxy, spymemcached or"
              + " spymemcached-weighted (default: ${DEFAULT-VALUE}).")
  String compat;

  @Mixin RouterParameters parameters;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Servers servers;

  static final class Servers {
    @Option(
        names = "--servers",
        description = "Server list: host:port[:weight] or name=host:port[:weight], comma-separated.")
    String inline;

    @Option(names = "--servers-file", description = "File with one server entry per line; # comments.")
    Path file;
  }

  @Option(names = "--keys-file", description = "File with one key per line (default: standard input).")
  Path keysFile;

  @Option(
      names = "--replicas",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "Servers per key: the first N distinct servers of the key's preference order, primary"
              + " first; from 1 to the number of servers (default: ${DEFAULT-VALUE}).")
  int replicas;

  @Override
  public Integer call() throws IOException {
    if (replicas < 1) {
      throw new IllegalArgumentException("--replicas must be >= 1 but was " + replicas);
    }
    String serverText =
        servers.inline != null ? servers.inline : Files.readString(servers.file, StandardCharsets.UTF_8);
    List<Node> nodes = ServerList.parse(serverText);
    if (replicas > nodes.size()) {
      throw new IllegalArgumentException(
          "--replicas must be at most the number of servers, " + nodes.size() + ", but was " + replicas);
    }
    Router r = parameters.applyTo(RouterSpec.of(router).withKetamaCompatibility(compat)).build(nodes);
    HashTag tag = parameters.hashTag();
    String[] addresses = nodes.stream().map(Node::address).toArray(String[]::new);

    PrintWriter out = spec.commandLine().getOut();
    try (Reader in =
            keysFile != null
                ? Files.newBufferedReader(keysFile, StandardCharsets.UTF_8)
                : new InputStreamReader(System.in, StandardCharsets.UTF_8);
        BufferedReader keys = new BufferedReader(in, 1 << 16)) {
      BufferedWriter buffered = new BufferedWriter(out, 1 << 16);
      int[] replicaNodes = new int[replicas];
      String key;
      while ((key = readLine(keys)) != null) {
        buffered.write(key);
        int count = r.replicas(tag.hash(r.hasher(), key), replicas, replicaNodes);
        for (int i = 0; i < count; i++) {
          buffered.write('\t');
          buffered.write(addresses[replicaNodes[i]]);
        }
        buffered.write('\n');
      }
      buffered.flush();
    }
    out.flush();
    return 0;
  }

  /** One line without its LF (and without a CR right before it); null at the end. */
  static String readLine(BufferedReader in) throws IOException {
    StringBuilder sb = null;
    int c;
    while ((c = in.read()) >= 0) {
      if (sb == null) {
        sb = new StringBuilder(32);
      }
      if (c == '\n') {
        break;
      }
      sb.append((char) c);
    }
    if (sb == null) {
      return null;
    }
    int len = sb.length();
    if (c == '\n' && len > 0 && sb.charAt(len - 1) == '\r') {
      sb.setLength(len - 1);
    }
    return sb.toString();
  }
}
