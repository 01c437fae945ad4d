package io.shardwise.cli;

import io.shardwise.core.RouterSpec;
import io.shardwise.ketama.KetamaCompatibility;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import io.shardwise.simulator.KeyMoves;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code shardwise plan}: how many keys move, and from which server to which, when the server list
 * changes from OLD to NEW, for every router, next to the least share any placement must move.
 * Moves are counted with the simulator's {@link KeyMoves}, as its {@code disrupt} experiment does.
 */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
      "Prints, for every router, how many keys move when the server list changes from OLD to"
          + " NEW, from which server to which, and the optimum: the least share of keys any"
          + " placement must move (the total variation distance between the old and new weight"
          + " shares; 1/(n+1) when one node joins n).",
      "Keys come from --keys-file (one per line), else --sample random key hashes drawn from"
          + " --seed. See docs/topology.md.",
      "With --replicas N, also the copies of keys stored on N servers each: how many each server"
          + " holds before and after, and how many are added to and removed from each."
    },
    sortOptions = false)
final class PlanCommand implements Callable<Integer> {

  static final int DEFAULT_SAMPLE = 1_000_000;
  static final long DEFAULT_SEED = 1;
  static final int DEFAULT_TOP = 10;

  /** The ketama compatibility modes a user can configure, in the order plan shows them. */
  static final List<String> KETAMA_MODES =
      Stream.concat(
              Arrays.stream(KetamaCompatibility.values()).map(KetamaCompatibility::id),
              Stream.of("spymemcached-weighted"))
          .collect(Collectors.toList());

  @Spec CommandSpec spec;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "OLD",
      description = "The server list now: host:port[:weight] or name=host:port[:weight], comma-separated, or @FILE.")
  String from;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "NEW",
      description = "The server list after the change, in the same syntax, or @FILE.")
  String to;

  @Option(
      names = "--router",
      split = ",",
      paramLabel = "ROUTER",
      description = "Routers to plan for: ketama, ring, hrw, jump, multiprobe, maglev, modulo (default: all).")
  List<String> routers;

  @Option(
      names = "--compat",
      split = ",",
      paramLabel = "MODE",
      description =
          "Ketama compatibility modes, one ketama row each: libketama, libmemcached, twemproxy,"
              + " spymemcached, spymemcached-weighted (default: all).")
  List<String> compat;

  @Mixin RouterParameters parameters;

  @Option(names = "--keys-file", description = "File with one key per line (UTF-8) to use instead of a sample.")
  Path keysFile;

  @Option(names = "--sample", paramLabel = "N", description = "Random key hashes to draw without --keys-file (default: 1000000).")
  int sample = DEFAULT_SAMPLE;

  @Option(names = "--seed", description = "Seed of the sample (default: 1).")
  long seed = DEFAULT_SEED;

  @Option(
      names = "--top",
      paramLabel = "N",
      description = "Flows, and with --replicas servers, shown per router, largest first (default: 10).")
  int top = DEFAULT_TOP;

  @Option(
      names = "--replicas",
      paramLabel = "N",
      description =
          "Also plan for N copies of every key, on the first N distinct servers of its preference"
              + " order; from 1 to the number of servers of each list (default: no such section).")
  Integer replicas;

  @Option(names = "--format", description = "text or json (default: text).")
  String format = "text";

  /**
   * The outcome for one router: its moves and, with {@code --replicas}, its replicas' copies; or
   * why it cannot place one of the lists.
   */
  record Outcome(String router, KeyMoves moves, ReplicaMoves replicas, String notApplicable) {}

  @Override
  public Integer call() throws IOException {
    boolean json = checkFormat();
    if (sample < 1) {
      throw new IllegalArgumentException("--sample must be >= 1 but was " + sample);
    }
    if (top < 0) {
      throw new IllegalArgumentException("--top must be >= 0 but was " + top);
    }
    if (keysFile != null && spec.commandLine().getParseResult().hasMatchedOption("--sample")) {
      throw new IllegalArgumentException("--sample and --keys-file exclude each other");
    }
    if (replicas != null && replicas < 1) {
      throw new IllegalArgumentException("--replicas must be >= 1 but was " + replicas);
    }
    List<Node> before = serverList("--from", from);
    List<Node> after = serverList("--to", to);
    if (replicas != null && replicas > Math.min(before.size(), after.size())) {
      throw new IllegalArgumentException(
          "--replicas must be at most the number of servers of each list (--from names "
              + before.size() + ", --to " + after.size() + ") but was " + replicas);
    }
    HashTag tag = parameters.hashTag();
    if (tag.isEnabled() && keysFile == null) {
      throw new IllegalArgumentException(
          "--hash-tag needs --keys-file: without it plan draws key hashes, not keys");
    }
    List<RouterSpec> specs = routerSpecs();
    KeySample keys = keysFile != null ? KeySample.read(keysFile, tag) : KeySample.random(sample, seed);

    List<Router[]> built = new ArrayList<>();
    List<String> notApplicable = new ArrayList<>();
    for (RouterSpec s : specs) {
      Router[] pair = null;
      String why = null;
      try {
        pair = new Router[] {s.build(before), s.build(after)};
        keys.hashes(pair[0].hasher());
        keys.hashes(pair[1].hasher());
      } catch (IllegalArgumentException e) {
        if (routers != null) {
          throw new IllegalArgumentException(s + ": " + e.getMessage(), e);
        }
        why = e.getMessage();
      }
      built.add(pair);
      notApplicable.add(why);
    }
    List<Outcome> outcomes =
        IntStream.range(0, specs.size())
            .parallel()
            .mapToObj(
                i ->
                    new Outcome(
                        specs.get(i).toString(),
                        built.get(i) == null ? null : count(built.get(i), keys),
                        built.get(i) == null || replicas == null
                            ? null
                            : countReplicas(built.get(i), keys, replicas),
                        notApplicable.get(i)))
            .collect(Collectors.toList());

    PlanReport report = new PlanReport(before, after, keys.describe(), outcomes, top, replicas);
    PrintWriter out = spec.commandLine().getOut();
    out.print(json ? report.json() : report.text());
    out.flush();
    return 0;
  }

  private boolean checkFormat() {
    switch (format.toLowerCase(Locale.ROOT)) {
      case "text":
        return false;
      case "json":
        return true;
      default:
        throw new IllegalArgumentException("--format must be text or json but was '" + format + "'");
    }
  }

  /** Every key through the old and the new router. */
  private static KeyMoves count(Router[] pair, KeySample keys) {
    Router old = pair[0];
    Router next = pair[1];
    long[] oldHashes = keys.hashes(old.hasher());
    long[] newHashes = keys.hashes(next.hasher());
    KeyMoves moves = KeyMoves.between(old.nodes(), next.nodes());
    for (int k = 0; k < oldHashes.length; k++) {
      moves.add(old.primary(oldHashes[k]), next.primary(newHashes[k]));
    }
    return moves;
  }

  /** Every key's {@code n} replicas through the old and the new router. */
  private static ReplicaMoves countReplicas(Router[] pair, KeySample keys, int n) {
    Router old = pair[0];
    Router next = pair[1];
    long[] oldHashes = keys.hashes(old.hasher());
    long[] newHashes = keys.hashes(next.hasher());
    ReplicaMoves moves = ReplicaMoves.between(old.nodes(), next.nodes(), n);
    int[] oldReplicas = new int[n];
    int[] newReplicas = new int[n];
    for (int k = 0; k < oldHashes.length; k++) {
      old.replicas(oldHashes[k], n, oldReplicas);
      next.replicas(newHashes[k], n, newReplicas);
      moves.add(oldReplicas, newReplicas);
    }
    return moves;
  }

  /** A server list given inline or as {@code @file}; errors name the option. */
  static List<Node> serverList(String option, String value) {
    String text = value;
    if (value.startsWith("@")) {
      Path file = Path.of(value.substring(1));
      try {
        text = Files.readString(file, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        throw new IllegalArgumentException(option + ": no such file: " + file, e);
      } catch (IOException e) {
        throw new IllegalArgumentException(option + ": cannot read " + file + ": " + e, e);
      }
    }
    try {
      return ServerList.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + " '" + value + "': " + e.getMessage(), e);
    }
  }

  /** The specs named by --router and --compat: every router and ketama mode by default. */
  private List<RouterSpec> routerSpecs() {
    RouterSpec base = parameters.applyTo(RouterSpec.DEFAULT);
    List<String> modes = compat != null ? compat : KETAMA_MODES;
    List<RouterSpec.Type> types = new ArrayList<>();
    if (routers == null) {
      // Every router but compat, whose placement depends on a mode: plan it by naming it.
      for (RouterSpec.Type type : RouterSpec.Type.values()) {
        if (type != RouterSpec.Type.COMPAT) {
          types.add(type);
        }
      }
    } else {
      for (String name : routers) {
        RouterSpec.Type type = RouterSpec.Type.of(name);
        if (!types.contains(type)) {
          types.add(type);
        }
      }
    }
    List<RouterSpec> specs = new ArrayList<>();
    for (RouterSpec.Type type : types) {
      if (type == RouterSpec.Type.KETAMA) {
        for (String mode : modes) {
          RouterSpec s = base.withType(type).withKetamaCompatibility(mode);
          if (!specs.contains(s)) {
            specs.add(s);
          }
        }
      } else {
        specs.add(base.withType(type));
      }
    }
    return specs;
  }

  /**
   * The keys: random 64-bit key hashes, as the simulator draws them ({@code new
   * SplittableRandom(seed)}, one {@code nextLong()} per key, given to every router as its hash),
   * or the keys of a file hashed by each router's hasher. Hashes are computed once per hasher.
   */
  static final class KeySample {
    private final long[] random;
    private final List<String> keys;
    private final HashTag tag;
    private final String description;
    private final Map<String, long[]> byHasher = new HashMap<>();

    private KeySample(long[] random, List<String> keys, HashTag tag, String description) {
      this.random = random;
      this.keys = keys;
      this.tag = tag;
      this.description = description;
    }

    static KeySample random(int count, long seed) {
      SplittableRandom r = new SplittableRandom(seed);
      long[] hashes = new long[count];
      for (int i = 0; i < count; i++) {
        hashes[i] = r.nextLong();
      }
      return new KeySample(
          hashes, null, HashTag.NONE,
          String.format(Locale.ROOT, "%,d random key hashes (seed %d)", count, seed));
    }

    static KeySample read(Path file, HashTag tag) throws IOException {
      List<String> keys = new ArrayList<>();
      try (BufferedReader in = new BufferedReader(Files.newBufferedReader(file, StandardCharsets.UTF_8), 1 << 16)) {
        String key;
        while ((key = LocateCommand.readLine(in)) != null) {
          keys.add(key);
        }
      } catch (NoSuchFileException e) {
        throw new IllegalArgumentException("--keys-file: no such file: " + file, e);
      }
      if (keys.isEmpty()) {
        throw new IllegalArgumentException("--keys-file " + file + ": the file has no keys");
      }
      String described =
          String.format(Locale.ROOT, "%,d keys from %s", keys.size(), file)
              + (tag.isEnabled() ? " (hash tag " + tag + ")" : "");
      return new KeySample(null, keys, tag, described);
    }

    /** The hash of every key for {@code hasher}. Not thread safe until filled for every hasher. */
    long[] hashes(KeyHasher hasher) {
      if (random != null) {
        return random;
      }
      return byHasher.computeIfAbsent(
          hasher.name(),
          name -> {
            long[] hashes = new long[keys.size()];
            for (int i = 0; i < hashes.length; i++) {
              hashes[i] = tag.hash(hasher, keys.get(i));
            }
            return hashes;
          });
    }

    String describe() {
      return description;
    }
  }
}
