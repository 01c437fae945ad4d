package io.shardwise.cli;

import io.shardwise.cli.PlanCommand.Outcome;
import io.shardwise.routing.Node;
import io.shardwise.simulator.KeyMoves;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What {@code shardwise plan} prints: a table of routers and their largest flows, and with {@code
 * --replicas} a table of their replicas' copies and the copies per server; or the same as JSON.
 * When the placement changes, a row is an old and a new router, and the text says what the
 * optimum means then.
 */
final class PlanReport {

  private final List<Node> before;
  private final List<Node> after;
  private final String sample;
  private final List<Outcome> outcomes;
  private final int top;
  /** Copies per key with {@code --replicas}, else null. */
  private final Integer replicas;
  /** Whether the router changes too (--from-router and --to-router). */
  private final boolean placementChange;
  /** The change itself, with no keys: servers, and the optimum. */
  private final KeyMoves change;

  PlanReport(
      List<Node> before, List<Node> after, String sample, List<Outcome> outcomes, int top, Integer replicas,
      boolean placementChange) {
    this.before = before;
    this.after = after;
    this.sample = sample;
    this.outcomes = outcomes;
    this.top = top;
    this.replicas = replicas;
    this.placementChange = placementChange;
    this.change = KeyMoves.between(before, after);
  }

  /**
   * The share of keys two unrelated placements of the old and the new list move: a key stays only
   * where both happen to put it, {@code 1 - sum over s of p_s q_s} with the weight shares {@code
   * p_s} before and {@code q_s} after (0.8 for one placement of 5 equal servers and another).
   */
  private double unrelated() {
    long totalBefore = 0;
    long totalAfter = 0;
    for (int s = 0; s < change.servers().size(); s++) {
      totalBefore += change.weightBefore(s);
      totalAfter += change.weightAfter(s);
    }
    double stay = 0;
    for (int s = 0; s < change.servers().size(); s++) {
      stay += (double) change.weightBefore(s) / totalBefore * change.weightAfter(s) / totalAfter;
    }
    return 1 - stay;
  }

  /** Added, removed, reweighted and unchanged servers, matched by address. */
  private int[] changeCounts() {
    int[] counts = new int[4];
    for (int s = 0; s < change.servers().size(); s++) {
      int was = change.weightBefore(s);
      int is = change.weightAfter(s);
      counts[was == 0 ? 0 : is == 0 ? 1 : was != is ? 2 : 3]++;
    }
    return counts;
  }

  /** A server as the lists name it: {@code name=host:port} with an explicit name, else the address. */
  private String label(int server) {
    return label(change.servers().get(server));
  }

  private static String label(Node node) {
    return node.hasExplicitName() ? node.name() + "=" + node.address() : node.address();
  }

  String text() {
    StringBuilder sb = new StringBuilder();
    int[] c = changeCounts();
    sb.append(
        String.format(
            Locale.ROOT,
            "Plan: %d servers -> %d servers: %d added, %d removed, %d reweighted, %d unchanged%n",
            before.size(), after.size(), c[0], c[1], c[2], c[3]));
    sb.append("Keys: ").append(sample).append('\n');
    sb.append(
        String.format(
            Locale.ROOT,
            "Optimum: %s of the keys must move at the least (total variation distance between the"
                + " old and new weight shares)%n",
            percent(change.optimum())));
    if (placementChange) {
      placementText(sb);
    }
    sb.append('\n');

    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"router", "keys", "moved", "moved %", "optimum %", "moved/optimum", "excess %"});
    List<String> notes = new ArrayList<>();
    for (Outcome o : outcomes) {
      KeyMoves m = o.moves();
      if (m == null) {
        notes.add(o.router() + ": not applicable: " + o.notApplicable());
        continue;
      }
      rows.add(
          new String[] {
            o.router(),
            count(m.keys()),
            count(m.moved()),
            percent(share(m.moved(), m)),
            percent(m.optimum()),
            ratio(m),
            percent(share(m.moved() - m.floor(), m))
          });
    }
    columns(sb, rows, "", "lrrrrrr");
    for (String note : notes) {
      sb.append(note).append('\n');
    }
    if (placementChange) {
      sb.append(
          "\nmoved/optimum: 1.000 is the least possible; - where the optimum is 0.\nexcess %: keys that"
              + " moved although the old router's shares and the new router's shares did not\nrequire"
              + " it.\n");
    } else {
      sb.append(
          "\nmoved/optimum: 1.000 is the least possible; a ring's uneven shares put it a little above"
              + " or below.\nexcess %: keys that moved although this router's own old and new shares"
              + " did not require it.\n");
    }

    for (Outcome o : outcomes) {
      KeyMoves m = o.moves();
      if (m == null) {
        continue;
      }
      List<KeyMoves.Flow> flows = m.flows();
      sb.append('\n')
          .append(o.router())
          .append(": ")
          .append(count(m.moved()))
          .append(" keys moved in ")
          .append(count(flows.size()))
          .append(flows.size() == 1 ? " flow" : " flows")
          .append(flows.isEmpty() ? "\n" : ":\n");
      List<String[]> flowRows = new ArrayList<>();
      int shown = Math.min(top, flows.size());
      for (KeyMoves.Flow f : flows.subList(0, shown)) {
        flowRows.add(
            new String[] {label(f.from()), "->", label(f.to()), count(f.keys()), percent(share(f.keys(), m))});
      }
      columns(sb, flowRows, "  ", "lllrr");
      if (shown < flows.size()) {
        long rest = m.moved() - flows.subList(0, shown).stream().mapToLong(KeyMoves.Flow::keys).sum();
        sb.append(
            String.format(
                Locale.ROOT,
                "  ... %s more %s: %s keys (%s)%n",
                count(flows.size() - shown),
                flows.size() - shown == 1 ? "flow" : "flows",
                count(rest),
                percent(share(rest, m))));
      }
    }
    if (replicas != null) {
      replicaText(sb);
    }
    return sb.toString();
  }

  /** What the optimum means when the router changes, and what unrelated placements move. */
  private void placementText(StringBuilder sb) {
    String optimum =
        change.optimum() == 0
            ? "The router changes: the optimum is the least a consistent change of the servers' shares"
                + " must move, and every server keeps its share here, so it is 0; every key a row moves"
                + " is the cost of the new placement itself."
            : "The router changes: the optimum is still the least a consistent change of the servers'"
                + " shares must move, whatever the routers; what a row moves beyond it is the cost of"
                + " the new placement itself.";
    String unrelated =
        String.format(
            Locale.ROOT,
            " Two unrelated placements keep a key on its server only by chance: they move %s (1 - sum"
                + " over s of p_s x q_s, with the old and new weight shares p and q).",
            percent(unrelated()));
    wrap(sb, optimum + unrelated, 100);
  }

  /** {@code text} in lines of at most {@code width} characters, broken at spaces. */
  private static void wrap(StringBuilder sb, String text, int width) {
    int line = 0;
    for (String word : text.split(" ")) {
      if (line > 0 && line + 1 + word.length() > width) {
        sb.append('\n');
        line = 0;
      } else if (line > 0) {
        sb.append(' ');
        line++;
      }
      sb.append(word);
      line += word.length();
    }
    sb.append('\n');
  }

  /** The replica section: a table of routers, then each router's copies per server. */
  private void replicaText(StringBuilder sb) {
    sb.append(
        String.format(
            Locale.ROOT,
            "%nReplicas: %d per key, the first %d distinct servers of its preference order; a copy"
                + " is one key on one server.%n%n",
            replicas, replicas));
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "router", "copies", "added", "added %", "removed", "removed %", "keys changed", "changed %"
        });
    for (Outcome o : outcomes) {
      ReplicaMoves r = o.replicas();
      if (r != null) {
        rows.add(
            new String[] {
              o.router(),
              count(r.copies()),
              count(r.added()),
              percent(fraction(r.added(), r.copies())),
              count(r.removed()),
              percent(fraction(r.removed(), r.copies())),
              count(r.changedKeys()),
              percent(fraction(r.changedKeys(), r.keys()))
            });
      }
    }
    columns(sb, rows, "", "lrrrrrrr");
    sb.append(
        "\ncopies: keys x replicas, before the change and after it.\nadded: copies on a server that"
            + " did not hold them before (copy them there, or they miss there until\nwritten again);"
            + " removed: copies a server no longer holds. Every key keeps its number of copies, so\n"
            + "the two totals are equal; the % columns are shares of the copies.\nkeys changed: keys"
            + " whose set of replicas changed.\n");

    for (Outcome o : outcomes) {
      ReplicaMoves r = o.replicas();
      if (r == null) {
        continue;
      }
      sb.append('\n')
          .append(o.router())
          .append(", ")
          .append(replicas)
          .append(replicas == 1 ? " replica" : " replicas")
          .append(": copies per server, most after the change first:\n");
      Integer[] servers = new Integer[r.servers().size()];
      for (int s = 0; s < servers.length; s++) {
        servers[s] = s;
      }
      Arrays.sort(
          servers,
          Comparator.comparingLong((Integer s) -> r.heldAfter(s))
              .thenComparingLong(s -> r.heldBefore(s))
              .reversed()
              .thenComparingInt(s -> s));
      List<String[]> serverRows = new ArrayList<>();
      int shown = Math.min(top, servers.length);
      if (shown > 0) {
        serverRows.add(new String[] {"server", "before", "after", "added", "removed"});
      }
      for (int i = 0; i < shown; i++) {
        int s = servers[i];
        serverRows.add(
            new String[] {
              label(r.servers().get(s)),
              count(r.heldBefore(s)),
              count(r.heldAfter(s)),
              count(r.addedTo(s)),
              count(r.removedFrom(s))
            });
      }
      columns(sb, serverRows, "  ", "lrrrr");
      if (shown < servers.length) {
        long[] rest = new long[4];
        for (int i = shown; i < servers.length; i++) {
          int s = servers[i];
          rest[0] += r.heldBefore(s);
          rest[1] += r.heldAfter(s);
          rest[2] += r.addedTo(s);
          rest[3] += r.removedFrom(s);
        }
        int more = servers.length - shown;
        sb.append(
            String.format(
                Locale.ROOT,
                "  ... %s more %s: %s before, %s after, %s added, %s removed%n",
                count(more),
                more == 1 ? "server" : "servers",
                count(rest[0]),
                count(rest[1]),
                count(rest[2]),
                count(rest[3])));
      }
    }
  }

  String json() {
    int[] c = changeCounts();
    JsonWriter w = new JsonWriter().beginObject();
    w.name("serversBefore").value(before.size());
    w.name("serversAfter").value(after.size());
    w.name("added").value(c[0]);
    w.name("removed").value(c[1]);
    w.name("reweighted").value(c[2]);
    w.name("unchanged").value(c[3]);
    w.name("sample").value(sample);
    w.name("optimum").value(change.optimum());
    if (placementChange) {
      w.name("unrelated").value(unrelated());
    }
    if (replicas != null) {
      w.name("replicas").value(replicas);
    }
    w.name("routers").beginArray();
    for (Outcome o : outcomes) {
      KeyMoves m = o.moves();
      w.beginObject().name("router").value(o.router());
      if (placementChange) {
        w.name("fromRouter").value(o.fromRouter()).name("toRouter").value(o.toRouter());
      }
      if (m == null) {
        w.name("notApplicable").value(o.notApplicable()).endObject();
        continue;
      }
      w.name("keys").value(m.keys());
      w.name("moved").value(m.moved());
      w.name("movedFraction").value(share(m.moved(), m));
      w.name("optimum").value(m.optimum());
      w.name("ratio").value(share(m.moved(), m) / m.optimum());
      w.name("floor").value(m.floor());
      w.name("excess").value(m.moved() - m.floor());
      List<KeyMoves.Flow> flows = m.flows();
      int shown = Math.min(top, flows.size());
      long shownKeys = 0;
      w.name("flows").beginArray();
      for (KeyMoves.Flow f : flows.subList(0, shown)) {
        w.beginObject().name("from").value(label(f.from())).name("to").value(label(f.to()));
        w.name("keys").value(f.keys()).endObject();
        shownKeys += f.keys();
      }
      w.endArray();
      w.name("otherFlows").value(flows.size() - shown);
      w.name("otherFlowKeys").value(m.moved() - shownKeys);
      if (o.replicas() != null) {
        replicaJson(w, o.replicas());
      }
      w.endObject();
    }
    w.endArray().endObject();
    return w.toString();
  }

  /** One router's replica figures, every server in {@link ReplicaMoves#servers()} order. */
  private void replicaJson(JsonWriter w, ReplicaMoves r) {
    w.name("replicaSets").beginObject();
    w.name("copies").value(r.copies());
    w.name("added").value(r.added());
    w.name("addedFraction").value(fraction(r.added(), r.copies()));
    w.name("removed").value(r.removed());
    w.name("removedFraction").value(fraction(r.removed(), r.copies()));
    w.name("keysChanged").value(r.changedKeys());
    w.name("keysChangedFraction").value(fraction(r.changedKeys(), r.keys()));
    w.name("servers").beginArray();
    for (int s = 0; s < r.servers().size(); s++) {
      w.beginObject().name("server").value(label(r.servers().get(s)));
      w.name("before").value(r.heldBefore(s)).name("after").value(r.heldAfter(s));
      w.name("added").value(r.addedTo(s)).name("removed").value(r.removedFrom(s));
      w.endObject();
    }
    w.endArray().endObject();
  }

  private static double fraction(long part, long whole) {
    return (double) part / whole;
  }

  private static double share(long keys, KeyMoves m) {
    return (double) keys / m.keys();
  }

  private static String ratio(KeyMoves m) {
    double optimum = m.optimum();
    return optimum == 0 ? "-" : String.format(Locale.ROOT, "%.3f", share(m.moved(), m) / optimum);
  }

  private static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.3f%%", 100 * fraction);
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** Rows as aligned columns; {@code align} has an {@code l} or an {@code r} per column. */
  private static void columns(StringBuilder sb, List<String[]> rows, String indent, String align) {
    if (rows.isEmpty()) {
      return;
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder(indent);
      for (int i = 0; i < row.length; i++) {
        if (i > 0) {
          line.append("  ");
        }
        String pad = " ".repeat(widths[i] - row[i].length());
        line.append(align.charAt(i) == 'l' ? row[i] + pad : pad + row[i]);
      }
      sb.append(line.toString().stripTrailing()).append('\n');
    }
  }
}
