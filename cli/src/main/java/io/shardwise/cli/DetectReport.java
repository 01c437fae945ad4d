package io.shardwise.cli;

import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What {@code detect} prints for a scored sample, and its exit status: the modes that place every
 * sampled key, grouped by the client that uses them; how those modes part once the server list
 * changes; a configuration to copy when they are one client's; what to check, most likely first,
 * when no mode places every key. Pure: it writes what it is given.
 */
final class DetectReport {

  /** A configuration was printed: one client's mode places every sampled key. */
  static final int FOUND = 0;
  /** No key on any server. */
  static final int NO_KEYS = 1;
  /** No mode places every sampled key; no configuration printed. */
  static final int NOT_FOUND = 3;
  /** Modes of several clients (or, with one server, every mode) place every key: {@code --writer} decides. */
  static final int WHICH_WRITER = 4;

  /** One server holding this share of the sampled keys or more makes a degenerate sample. */
  static final double DEGENERATE = 0.9;
  /** Fewer sampled keys than this can fit a wrong mode by chance. */
  static final int FEW_KEYS = 50;
  /** Modes at 100% listed per client; the rest are counted. */
  private static final int LISTED_PER_WRITER = 8;
  /** Most modes at 100% compared after changes of the list. */
  private static final int COMPARED = 16;

  /**
   * What was asked.
   *
   * @param backend memcached or redis
   * @param servers the server list as given, for {@code shardwise.servers}
   * @param writer the client {@code --writer} named, or null
   * @param top modes below 100% to list
   * @param tags the hash tags scored, {@link HashTag#NONE} first unless {@code --hash-tag} was given
   */
  record Request(String backend, List<Node> servers, Writer writer, int top, List<HashTag> tags) {

    boolean redis() {
      return backend.equals("redis");
    }
  }

  private DetectReport() {}

  /** Writes the report of {@code scores} (best first) on {@code sample}; returns the exit status. */
  static int write(Request request, Sample sample, List<Detection.Score> scores, ValueSample values, PrintWriter out) {
    List<Node> nodes = sample.nodes();
    StringBuilder perServer = new StringBuilder();
    for (int i = 0; i < nodes.size(); i++) {
      perServer.append(i == 0 ? "" : ", ").append(sample.count(i)).append(" on ").append(nodes.get(i).address());
    }
    out.println("sampled " + sample.size() + " keys: " + perServer);
    if (sample.size() == 0) {
      out.println("no keys on these servers: nothing to detect");
      return NO_KEYS;
    }
    if (!values.values().isEmpty()) {
      out.println("read " + values.values().size() + " values: "
          + CodecProposal.describe(request.redis(), values.values())
          + (values.touched() ? " (Redis before 7.2 counts these reads as accesses)" : ""));
    }
    for (String problem : values.problems()) {
      out.println("values: " + problem);
    }
    warnings(sample, out);

    List<Detection.Score> full = scores.stream().filter(Detection.Score::placesEveryKey).collect(Collectors.toList());
    Map<Writer, List<Detection.Score>> byWriter = new LinkedHashMap<>();
    for (Detection.Score s : full) {
      byWriter.computeIfAbsent(s.writer(), w -> new ArrayList<>()).add(s);
    }
    table(request, scores, byWriter, out);
    out.println();

    if (full.isEmpty()) {
      notFound(request, sample, scores, out);
      return NOT_FOUND;
    }
    if (nodes.size() == 1) {
      out.println("With one server every mode places every key on it: the sample cannot tell placements"
          + " apart, and the placement matters from the first server added. Configure the mode that names"
          + " the clients' settings (docs/migration.md).");
      return WHICH_WRITER;
    }
    if (byWriter.size() > 1) {
      out.println("Every sampled key sits where the modes of " + byWriter.size() + " clients put it: "
          + byWriter.keySet().stream().map(Writer::id).collect(Collectors.joining(", ")) + ".");
      out.println("They are the same placement for this server list, not for every list.");
      differences(request, sample, full, byWriter, out);
      out.println("Which client wrote the fleet? Run detect again with "
          + byWriter.keySet().stream().map(w -> "--writer " + w.id()).collect(Collectors.joining(" or "))
          + " for its configuration.");
      return WHICH_WRITER;
    }
    Detection.Score chosen = full.get(0);
    if (full.size() > 1) {
      out.println(full.size() + " modes of " + chosen.writer().id() + " place every sampled key; the first is"
          + " proposed. Take another if it names the clients' settings better.");
      differences(request, sample, full, byWriter, out);
    } else {
      out.println("Every sampled key sits where " + chosen.name() + " puts it.");
    }
    configuration(request, chosen, values, out);
    return FOUND;
  }

  private static void warnings(Sample sample, PrintWriter out) {
    int n = sample.nodes().size();
    for (int s = 0; s < n && n > 1; s++) {
      if (sample.count(s) >= DEGENERATE * sample.size()) {
        out.printf(Locale.ROOT, "warning: %s holds %d of the %d sampled keys (%.2f%%). A placement spreads keys"
                + " over every server, so this sample tells placements apart poorly: are these the servers the"
                + " clients use, do the keys share a hash tag, were the other servers down, flushed or restarted"
                + " while the keys were written?%n",
            sample.nodes().get(s).address(), sample.count(s), sample.size(), 100.0 * sample.count(s) / sample.size());
      }
    }
    if (sample.size() < FEW_KEYS && n > 1) {
      out.println("warning: only " + sample.size() + " keys: a wrong mode can place so few right by chance;"
          + " more keys on the servers (or a larger --sample) make the answer surer.");
    }
  }

  private static void table(Request request, List<Detection.Score> scores, Map<Writer, List<Detection.Score>> byWriter,
      PrintWriter out) {
    out.println();
    out.println("   share     keys  client        mode");
    for (List<Detection.Score> modes : byWriter.values()) {
      for (Detection.Score s : modes.subList(0, Math.min(LISTED_PER_WRITER, modes.size()))) {
        row(s, out);
      }
      if (modes.size() > LISTED_PER_WRITER) {
        out.println("                            ... and " + (modes.size() - LISTED_PER_WRITER) + " more modes of "
            + modes.get(0).writer().id() + " at 100%");
      }
    }
    belowEveryKey(scores, request.top(), out);
  }

  /**
   * The first {@code top} of the modes (best first) that miss sampled keys, and, when the last of
   * them ties with modes left out, how many: a cut tie would otherwise read as a ranking.
   */
  static void belowEveryKey(List<Detection.Score> scores, int top, PrintWriter out) {
    List<Detection.Score> below = scores.stream().filter(s -> !s.placesEveryKey()).toList();
    int shown = Math.min(top, below.size());
    below.subList(0, shown).forEach(s -> row(s, out));
    if (shown == 0 || shown == below.size()) {
      return;
    }
    Detection.Score last = below.get(shown - 1);
    int tied = 0;
    while (shown + tied < below.size() && sameShare(below.get(shown + tied), last)) {
      tied++;
    }
    if (tied > 0) {
      out.printf(Locale.ROOT, "                            ... and %d more modes at %.2f%%, tied with the last"
          + " (cut by --top %d; --top %d lists them)%n", tied, 100.0 * last.share(), top, shown + tied);
    }
  }

  private static boolean sameShare(Detection.Score a, Detection.Score b) {
    return (long) a.hits() * b.total() == (long) b.hits() * a.total();
  }

  private static void row(Detection.Score s, PrintWriter out) {
    out.printf(Locale.ROOT, "%7.2f%%  %7d  %-12s  %s%n", 100.0 * s.share(), s.hits(), s.writer().id(), s.name());
  }

  /** How {@code modes}, which all place every sampled key, part once the server list changes. */
  private static void differences(Request request, Sample sample, List<Detection.Score> modes,
      Map<Writer, List<Detection.Score>> byWriter, PrintWriter out) {
    if (modes.size() > COMPARED) {
      out.println("(" + modes.size() + " modes are too many to compare after changes of the list.)");
      return;
    }
    List<String> parting = new ArrayList<>();
    List<String> same = new ArrayList<>();
    for (Differences.Change change : Differences.changes(sample.nodes(), request.redis())) {
      Differences.Split split = Differences.split(sample, modes, change);
      if (!split.parts()) {
        same.add(change.description());
        continue;
      }
      List<String> groups = new ArrayList<>();
      for (List<Detection.Score> group : split.groups()) {
        groups.add(label(group, byWriter));
      }
      if (!split.refusing().isEmpty()) {
        groups.add("refused by " + label(split.refusing(), byWriter));
      }
      parting.add(String.format(Locale.ROOT, "  %s: %s (%.2f%% of the sampled keys on different servers)",
          change.description(), String.join(" | ", groups), 100 * split.disagreement()));
    }
    if (parting.isEmpty()) {
      out.println("They place the sampled keys alike also with " + String.join("; ", same)
          + "; they differ on other lists (docs/routers.md says how).");
      return;
    }
    out.println("They part once the list changes (the sampled keys placed on a changed list):");
    parting.forEach(out::println);
    if (!same.isEmpty()) {
      out.println("  alike with " + String.join("; ", same));
    }
  }

  /** The modes of {@code group}, a client's name standing for all its modes at 100%. */
  private static String label(List<Detection.Score> group, Map<Writer, List<Detection.Score>> byWriter) {
    List<String> parts = new ArrayList<>();
    Map<Writer, List<Detection.Score>> inGroup = new LinkedHashMap<>();
    for (Detection.Score s : group) {
      inGroup.computeIfAbsent(s.writer(), w -> new ArrayList<>()).add(s);
    }
    inGroup.forEach((writer, modes) -> {
      if (byWriter.size() > 1 && modes.size() == byWriter.get(writer).size()) {
        parts.add(writer.id());
      } else {
        modes.forEach(s -> parts.add(s.name()));
      }
    });
    return String.join(", ", parts);
  }

  private static void configuration(Request request, Detection.Score mode, ValueSample values, PrintWriter out) {
    CodecProposal codec = CodecProposal.of(request.redis(), mode.writer(), values);
    out.println(codec.codec() == null ? "codec: not determined: " + codec.reason()
        : "codec: " + codec.codec() + ": " + codec.reason());
    out.println();
    out.println("# shardwise.* for " + mode.writer().id() + "'s placement: " + mode.name());
    out.println("shardwise.backend=" + request.backend());
    out.println("shardwise.servers=" + request.servers().stream().map(Node::toString).collect(Collectors.joining(",")));
    mode.routerProperties().forEach((k, v) -> out.println(k + "=" + v));
    if (codec.codec() != null) {
      out.println("shardwise.codec=" + codec.codec());
    }
  }

  private static void notFound(Request request, Sample sample, List<Detection.Score> scores, PrintWriter out) {
    Detection.Score best = scores.get(0);
    out.printf(Locale.ROOT, "No mode places every sampled key: the best, %s, places %.2f%% of them (%d of %d).%n",
        best.name(), 100 * best.share(), best.hits(), best.total());
    out.printf(Locale.ROOT, "No configuration is printed: a client with it would miss the other %.2f%% of the"
        + " keys.%n", 100 * (1 - best.share()));
    // Most likely first: the order, the names, the weights, the hash tag, several writers; a
    // finding in the sample goes before the checks it makes likelier.
    List<String> found = new ArrayList<>();
    List<String> check = new ArrayList<>();
    Optional<Hints.Relabeling> relabeling = Hints.relabeling(sample, scores);
    String order = "server order: give the servers in the order the clients list them (modulo placements"
        + " and ShardedJedis's unnamed shards go by position, a continuum's equal points by list order).";
    String names = "server names: twemproxy hashes the names of its pool (`- host:port:weight name`),"
        + " ShardedJedis those of named shards: give them as name=host:port or host:port:weight name; the"
        + " other clients hash each address as they write it (a host name or an IP, the port).";
    if (relabeling.isPresent() && relabeling.get().order() != null) {
      Hints.Relabeling r = relabeling.get();
      String list = r.order().stream().map(Node::toString).collect(Collectors.joining(","));
      found.add(String.format(Locale.ROOT, "server order: with the servers in the order %s, %s places %.2f%% of"
          + " the keys: run detect again with --servers %s", list, r.mode().name(),
          100.0 * r.reordered() / sample.size(), list));
      check.add(names);
    } else if (relabeling.isPresent()) {
      Hints.Relabeling r = relabeling.get();
      List<String> moves = new ArrayList<>();
      for (int p = 0; p < r.mapping().length; p++) {
        if (r.mapping()[p] >= 0 && r.mapping()[p] != p) {
          moves.add("the keys it puts on " + sample.nodes().get(p).address() + " are on "
              + sample.nodes().get(r.mapping()[p]).address());
        }
      }
      check.add(order);
      found.add(String.format(Locale.ROOT, "server names: %s places %.2f%% of the keys if the servers are renamed"
          + " one for one: %s. The clients know the servers by other names or addresses (twemproxy's server"
          + " names, a host name instead of an IP, another port): give them as the clients do.",
          r.mode().name(), 100.0 * r.hits() / sample.size(), String.join("; ", moves)));
    } else {
      check.add(order);
      check.add(names);
    }
    check.add("weights: give each server's weight as the clients do (host:port:weight): twemproxy,"
        + " Xmemcached, ShardedJedis, libmemcached's weighted continuum and spymemcached with a weights map"
        + " place keys by them.");
    String tags = request.tags().stream().map(t -> t.isEnabled() ? t.toString() : "none").collect(Collectors.joining(", "));
    check.add("hash tag: scored with " + tags + "; if the clients hash only part of each key (twemproxy's"
        + " hash_tag), give it with --hash-tag.");
    List<Hints.Part> cover = Hints.cover(sample, scores);
    int covered = cover.stream().mapToInt(Hints.Part::added).sum();
    if (cover.size() > 1 && covered >= Hints.EXPLAINS * sample.size()) {
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < cover.size(); i++) {
        Hints.Part part = cover.get(i);
        parts.add(String.format(Locale.ROOT, "%s places %.2f%%%s%s", part.name(), 100.0 * part.added() / sample.size(),
            i == 0 ? " of the keys" : " more",
            part.alike() == 0 ? "" : part.alike() == 1 ? " (so does 1 other mode)" : " (so do " + part.alike() + " other modes)"));
      }
      found.add(String.format(Locale.ROOT, "several writers: %s; together %.2f%%. Keys were written under %d"
          + " placements (two clients, two configurations of one, the list before and after a resize)."
          + " Shardwise follows one: configure the one that stays (--writer, --servers) and let the others'"
          + " keys expire.", String.join(", ", parts), 100.0 * covered / sample.size(), cover.size()));
    } else if (best.share() >= Hints.EXPLAINS) {
      List<String> examples = new ArrayList<>();
      for (int[] miss : Hints.misses(sample, best, 3)) {
        examples.add("'" + printable(sample.key(miss[0])) + "' on " + sample.nodes().get(sample.server(miss[0])).address()
            + " (it puts it on " + sample.nodes().get(miss[1]).address() + ")");
      }
      found.add(String.format(Locale.ROOT, "stray keys: %s misses only %d keys, e.g. %s. Keys written while"
          + " their server was out (a client's failover to the next server) or by another writer look like"
          + " this; if neither happened, check the rest.", best.name(), best.total() - best.hits(),
          String.join(", ", examples)));
    } else {
      check.add("several writers: a second application or client, or the list before a resize, may have written"
          + " part of the fleet; keys of a former placement stay until they expire.");
    }
    out.println("What to check, most likely first:");
    int i = 1;
    for (String hint : found) {
      out.println("  " + i++ + ". " + hint);
    }
    for (String hint : check) {
      out.println("  " + i++ + ". " + hint);
    }
  }

  /** The key as text, bytes that are not printable ASCII as %XX. */
  private static String printable(byte[] key) {
    StringBuilder sb = new StringBuilder();
    for (byte b : key) {
      if (b > ' ' && b < 0x7f && b != '%' && b != '\'') {
        sb.append((char) b);
      } else {
        sb.append('%').append(String.format(Locale.ROOT, "%02X", b & 0xFF));
      }
    }
    return sb.length() > 60 ? sb.substring(0, 60) + "..." : sb.toString();
  }
}
