package io.shardwise.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options of {@code plan} that change the placement itself: the router, and each router
 * option, before and after the change. A side's option that is not given takes the shared one
 * ({@code --compat}, {@code --points}, ...), as {@code --router} would.
 */
final class PlacementChange {

  /** Before or after the change: the prefix of its options. */
  enum Side {
    FROM("--from"),
    TO("--to");

    private final String prefix;

    Side(String prefix) {
      this.prefix = prefix;
    }

    /** This side's option for {@code name}, e.g. {@code --to-table-size}. */
    String option(String name) {
      return prefix + "-" + name;
    }
  }

  @Option(
      names = "--from-router",
      split = ",",
      paramLabel = "ROUTER",
      description =
          "Plan a change of placement: the routers now (comma-separated, as --router takes them);"
              + " needs --to-router, excludes --router.")
  List<String> fromRouter;

  @Option(
      names = "--to-router",
      split = ",",
      paramLabel = "ROUTER",
      description = "The routers after the change; one row per pair of --from-router and --to-router.")
  List<String> toRouter;

  @Option(names = "--from-compat", split = ",", paramLabel = "MODE", description = "Ketama modes now (default: --compat).")
  List<String> fromCompat;

  @Option(names = "--to-compat", split = ",", paramLabel = "MODE", description = "Ketama modes after (default: --compat).")
  List<String> toCompat;

  @Option(names = "--from-compat-mode", paramLabel = "MODE", description = "Compat router mode now (default: --compat-mode).")
  String fromCompatMode;

  @Option(names = "--to-compat-mode", paramLabel = "MODE", description = "Compat router mode after (default: --compat-mode).")
  String toCompatMode;

  @Option(names = "--from-points", paramLabel = "V", description = "Ring points per node now (default: --points).")
  Integer fromPoints;

  @Option(names = "--to-points", paramLabel = "V", description = "Ring points per node after (default: --points).")
  Integer toPoints;

  @Option(names = "--from-probes", paramLabel = "K", description = "Multiprobe probes now (default: --probes).")
  Integer fromProbes;

  @Option(names = "--to-probes", paramLabel = "K", description = "Multiprobe probes after (default: --probes).")
  Integer toProbes;

  @Option(names = "--from-table-size", paramLabel = "M", description = "Maglev table size now (default: --table-size).")
  Integer fromTableSize;

  @Option(names = "--to-table-size", paramLabel = "M", description = "Maglev table size after (default: --table-size).")
  Integer toTableSize;

  /** Whether the placement changes: --from-router or --to-router given. */
  boolean given() {
    return fromRouter != null || toRouter != null;
  }

  List<String> routers(Side side) {
    return side == Side.FROM ? fromRouter : toRouter;
  }

  List<String> compat(Side side) {
    return side == Side.FROM ? fromCompat : toCompat;
  }

  String compatMode(Side side) {
    return side == Side.FROM ? fromCompatMode : toCompatMode;
  }

  Integer points(Side side) {
    return side == Side.FROM ? fromPoints : toPoints;
  }

  Integer probes(Side side) {
    return side == Side.FROM ? fromProbes : toProbes;
  }

  Integer tableSize(Side side) {
    return side == Side.FROM ? fromTableSize : toTableSize;
  }

  /** The per-side router options given, by name, e.g. {@code --to-table-size}. */
  List<String> optionsGiven() {
    List<String> given = new ArrayList<>();
    for (Side side : Side.values()) {
      if (compat(side) != null) {
        given.add(side.option("compat"));
      }
      if (compatMode(side) != null) {
        given.add(side.option("compat-mode"));
      }
      if (points(side) != null) {
        given.add(side.option("points"));
      }
      if (probes(side) != null) {
        given.add(side.option("probes"));
      }
      if (tableSize(side) != null) {
        given.add(side.option("table-size"));
      }
    }
    return given;
  }
}
