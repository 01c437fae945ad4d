package io.shardwise.cli;

import io.shardwise.cli.PlacementChange.Side;
import io.shardwise.core.RouterSpec;
import io.shardwise.ketama.KetamaCompatibility;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Murmur3;
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
 * changes from OLD to NEW, for every router, next to the least share any placement must move; or,
 * with {@code --from-router} and {@code --to-router}, when the placement itself changes too.
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
          + " holds before and after, and how many are added to and removed from each.",
      "With --from-router and --to-router (and --from-/--to- versions of the router options), the"
          + " placement changes from the old router to the new one, with or without a list change;"
          + " one list (--from or --to) then serves both sides."
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
      paramLabel = "OLD",
      description =
          "The server list now: host:port[:weight] or name=host:port[:weight], comma-separated, or"
              + " @FILE. Required, unless --from-router and --to-router are given: then --to serves"
              + " both sides.")
  String from;

  @Option(
      names = "--to",
      paramLabel = "NEW",
      description =
          "The server list after the change, in the same syntax, or @FILE. Required, unless"
              + " --from-router and --to-router are given: then --from serves both sides.")
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

  @Mixin PlacementChange placement;

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
   * The outcome for one router, or for one old and new router: its moves and, with {@code
   * --replicas}, its replicas' copies; or why it cannot place one of the lists. {@code fromRouter}
   * and {@code toRouter} are set when the placement changes.
   */
  record Outcome(
      String router, String fromRouter, String toRouter, KeyMoves moves, ReplicaMoves replicas,
      String notApplicable) {}

  /** A row of the plan: the router before and after the change, one router unless it changes. */
  record Row(RouterSpec from, RouterSpec to) {
    String label(boolean placementChange) {
      return placementChange ? from + " -> " + to : from.toString();
    }
  }

  @Override
  public Integer call() throws IOException {
    boolean change = placement.given();
    checkPlacementOptions();
    if (!change && (from == null || to == null)) {
      // What picocli said when --from and --to were required options.
      throw new IllegalArgumentException(
          from == null && to == null
              ? "Missing required options: '--from=OLD', '--to=NEW'"
              : "Missing required option: '" + (from == null ? "--from=OLD" : "--to=NEW") + "'");
    }
    if (from == null && to == null) {
      throw new IllegalArgumentException(
          "--from-router and --to-router need a server list: --from, --to or both (one list serves"
              + " both sides)");
    }
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
    List<Node> before = from != null ? serverList("--from", from) : null;
    List<Node> after = to != null ? serverList("--to", to) : before;
    if (before == null) {
      before = after;
    }
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
    List<Row> rows = change ? placementRows() : routerRows();

    List<Router[]> built = new ArrayList<>();
    List<String> notApplicable = new ArrayList<>();
    for (Row row : rows) {
      Router[] pair = null;
      String why = null;
      if (change) {
        pair = new Router[] {build(row.from(), Side.FROM, before), build(row.to(), Side.TO, after)};
      } else {
        try {
          pair = new Router[] {row.from().build(before), row.to().build(after)};
        } catch (IllegalArgumentException e) {
          if (routers != null) {
            throw new IllegalArgumentException(row.from() + ": " + e.getMessage(), e);
          }
          why = e.getMessage();
        }
      }
      built.add(pair);
      notApplicable.add(why);
    }
    KeySample keys = keysFile != null ? KeySample.read(keysFile, tag) : KeySample.random(sample, seed);
    for (Router[] pair : built) {
      if (pair != null) {
        keys.hashes(pair[0].hasher());
        keys.hashes(pair[1].hasher(), pair[0].hasher());
      }
    }
    List<Outcome> outcomes =
        IntStream.range(0, rows.size())
            .parallel()
            .mapToObj(
                i ->
                    new Outcome(
                        rows.get(i).label(change),
                        change ? rows.get(i).from().toString() : null,
                        change ? rows.get(i).to().toString() : null,
                        built.get(i) == null ? null : count(built.get(i), keys),
                        built.get(i) == null || replicas == null
                            ? null
                            : countReplicas(built.get(i), keys, replicas),
                        notApplicable.get(i)))
            .collect(Collectors.toList());

    PlanReport report = new PlanReport(before, after, keys.describe(), outcomes, top, replicas, change);
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
    long[] newHashes = keys.hashes(next.hasher(), old.hasher());
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
    long[] newHashes = keys.hashes(next.hasher(), old.hasher());
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

  /**
   * The options of a placement change that must come together or not at all: checked before
   * anything is read, so that a conflict is the first thing plan reports.
   */
  private void checkPlacementOptions() {
    if (placement.given()) {
      if (routers != null) {
        throw new IllegalArgumentException(
            "--router and --from-router/--to-router exclude each other: --router plans the same"
                + " router on both sides, --from-router and --to-router a change of router");
      }
      if (placement.fromRouter == null || placement.toRouter == null) {
        throw new IllegalArgumentException(
            (placement.fromRouter == null ? "--to-router needs --from-router" : "--from-router needs --to-router")
                + ": name the router on both sides (the same one to change only its options)");
      }
    } else {
      List<String> given = placement.optionsGiven();
      if (!given.isEmpty()) {
        throw new IllegalArgumentException(given.get(0) + " needs --from-router and --to-router");
      }
    }
  }

  /**
   * The rows of a plan without a change of router: one per router of --router, and per mode of
   * --compat for ketama; every router and ketama mode by default.
   */
  private List<Row> routerRows() {
    List<RouterSpec> specs =
        routerSpecs(
            parameters.applyTo(RouterSpec.DEFAULT), routerTypes(routers), compat != null ? compat : KETAMA_MODES);
    return specs.stream().map(s -> new Row(s, s)).collect(Collectors.toList());
  }

  /** The rows of a placement change: every router of --from-router with every one of --to-router. */
  private List<Row> placementRows() {
    List<RouterSpec> olds = sideSpecs(Side.FROM);
    List<RouterSpec> news = sideSpecs(Side.TO);
    List<Row> rows = new ArrayList<>();
    for (RouterSpec old : olds) {
      for (RouterSpec next : news) {
        rows.add(new Row(old, next));
      }
    }
    return rows;
  }

  /**
   * The specs of one side of a placement change: its routers and router options, each option not
   * given for the side taken from the shared one. Errors name the option.
   */
  private List<RouterSpec> sideSpecs(Side side) {
    RouterSpec base = parameters.applyTo(RouterSpec.DEFAULT);
    try {
      if (placement.compatMode(side) != null) {
        base = base.withCompatMode(placement.compatMode(side));
      }
    } catch (IllegalArgumentException e) {
      throw named(side.option("compat-mode"), e);
    }
    try {
      if (placement.points(side) != null) {
        base = base.withRingPoints(placement.points(side));
      }
    } catch (IllegalArgumentException e) {
      throw named(side.option("points"), e);
    }
    try {
      if (placement.probes(side) != null) {
        base = base.withProbes(placement.probes(side));
      }
    } catch (IllegalArgumentException e) {
      throw named(side.option("probes"), e);
    }
    try {
      if (placement.tableSize(side) != null) {
        base = base.withTableSize(placement.tableSize(side));
      }
    } catch (IllegalArgumentException e) {
      throw named(side.option("table-size"), e);
    }
    List<RouterSpec.Type> types;
    try {
      types = routerTypes(placement.routers(side));
    } catch (IllegalArgumentException e) {
      throw named(side.option("router"), e);
    }
    List<String> modes = placement.compat(side) != null ? placement.compat(side) : compat;
    String modesOption = placement.compat(side) != null ? side.option("compat") : "--compat";
    try {
      return routerSpecs(base, types, modes != null ? modes : KETAMA_MODES);
    } catch (IllegalArgumentException e) {
      throw named(modesOption, e);
    }
  }

  /**
   * {@code routerSpec} built for one side of a placement change; an error names the side's router
   * and the option that set the parameter it depends on, if one was given.
   */
  private Router build(RouterSpec routerSpec, Side side, List<Node> nodes) {
    try {
      return routerSpec.build(nodes);
    } catch (IllegalArgumentException e) {
      StringBuilder which = new StringBuilder(side.option("router")).append(' ').append(routerSpec.type().id());
      String option = null;
      Object value = null;
      switch (routerSpec.type()) {
        case KETAMA:
          option = placement.compat(side) != null ? side.option("compat") : compat != null ? "--compat" : null;
          value = routerSpec.ketamaCompatibility();
          break;
        case RING:
          option = placement.points(side) != null ? side.option("points") : given("--points");
          value = routerSpec.ringPoints();
          break;
        case MULTIPROBE:
          option = placement.probes(side) != null ? side.option("probes") : given("--probes");
          value = routerSpec.probes();
          break;
        case MAGLEV:
          option = placement.tableSize(side) != null ? side.option("table-size") : given("--table-size");
          value = routerSpec.tableSize();
          break;
        case COMPAT:
          option = placement.compatMode(side) != null ? side.option("compat-mode") : given("--compat-mode");
          value = routerSpec.compatMode().id();
          break;
        default:
          break;
      }
      if (option != null) {
        which.append(' ').append(option).append(' ').append(value);
      }
      throw named(which.toString(), e);
    }
  }

  /** {@code option} if the command line gave it, else null. */
  private String given(String option) {
    return spec.commandLine().getParseResult().hasMatchedOption(option) ? option : null;
  }

  private static IllegalArgumentException named(String option, IllegalArgumentException e) {
    return new IllegalArgumentException(option + ": " + e.getMessage(), e);
  }

  /** The router types named, each once; every router but compat when none is named. */
  private static List<RouterSpec.Type> routerTypes(List<String> routers) {
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
    return types;
  }

  /** A spec per type, and per ketama mode for ketama. */
  private static List<RouterSpec> routerSpecs(RouterSpec base, List<RouterSpec.Type> types, List<String> modes) {
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

    /**
     * The hash of every key for {@code hasher}, given to a new router whose old one hashes keys
     * with {@code old}. A key file's keys are hashed as ever. A random key hash stands for a key's
     * hash under one function: under another function the same key has an unrelated hash, so when
     * the two differ the new router gets {@code fmix64(hash ^ salt)}, the salt a hash of the new
     * function's name. Not thread safe until filled for every pair of hashers.
     */
    long[] hashes(KeyHasher hasher, KeyHasher old) {
      if (random == null || hasher.name().equals(old.name())) {
        return hashes(hasher);
      }
      return byHasher.computeIfAbsent(
          "unrelated to the sample: " + hasher.name(),
          name -> {
            long salt = Murmur3.INSTANCE.hash(hasher.name());
            long[] hashes = new long[random.length];
            for (int i = 0; i < hashes.length; i++) {
              hashes[i] = Murmur3.fmix64(random[i] ^ salt);
            }
            return hashes;
          });
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
