package io.shardwise.simulator;

import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Which server owns each key before and after a server-list change, counted key by key: how many
 * keys moved, how many each server held before and after, and the flows between servers. Both
 * {@code shardwise plan} and the simulator's {@code disrupt} experiment count moves with it.
 *
 * <p>Servers are matched by address (host ignoring case, and port), the server that holds the
 * data: a node that keeps its address but changes its name or weight is the same server. The
 * servers are numbered as {@link #servers()} lists them: the old list in order, then the servers
 * that only the new list names, in its order.
 *
 * <p><b>Optimum.</b> Let {@code p_s} be server s's share of the weight in the old list and {@code
 * q_s} in the new one (0 where it is absent). A server can keep at most {@code q_s} of the key
 * space, so at least {@code p_s - q_s} of the keys must leave it when its share shrinks; moving
 * exactly that excess to the servers that grow achieves the bound, so the least share of keys
 * that must move is {@code sum_s max(0, p_s - q_s) = 1/2 sum_s |p_s - q_s|}, the total variation
 * distance between the old and new shares ({@link #optimum()}): 1/(n+1) when one node joins n
 * equal ones, 1/n when one of n leaves or is replaced. The same bound over the counted keys, with
 * the shares the router actually gave them ({@link #floor()}), is what this router had to move
 * given its own balance; {@code moved - floor} keys moved between servers that did not need to.
 */
public final class KeyMoves {

  private final List<Node> servers;
  private final int[] fromServer;
  private final int[] toServer;
  private final int[] weightBefore;
  private final int[] weightAfter;
  private final long[] ownedBefore;
  private final long[] ownedAfter;
  private final FlowCounts flows = new FlowCounts();
  private long keys;
  private long moved;

  private KeyMoves(List<Node> before, List<Node> after) {
    Map<String, Integer> index = new HashMap<>();
    List<Node> union = new ArrayList<>(before);
    fromServer = new int[before.size()];
    for (int i = 0; i < before.size(); i++) {
      fromServer[i] = i;
      index.put(addressKey(before.get(i)), i);
    }
    toServer = new int[after.size()];
    for (int j = 0; j < after.size(); j++) {
      Node node = after.get(j);
      Integer s = index.get(addressKey(node));
      if (s == null) {
        s = union.size();
        union.add(node);
        index.put(addressKey(node), s);
      }
      toServer[j] = s;
    }
    servers = List.copyOf(union);
    weightBefore = weights(before, fromServer, servers.size());
    weightAfter = weights(after, toServer, servers.size());
    ownedBefore = new long[servers.size()];
    ownedAfter = new long[servers.size()];
  }

  /** An empty count for a change from {@code before} to {@code after} (node lists in router order). */
  public static KeyMoves between(List<Node> before, List<Node> after) {
    return new KeyMoves(before, after);
  }

  private static String addressKey(Node node) {
    return node.host().toLowerCase(Locale.ROOT) + "#" + node.port();
  }

  private static int[] weights(List<Node> nodes, int[] server, int size) {
    int[] weights = new int[size];
    for (int i = 0; i < nodes.size(); i++) {
      weights[server[i]] = nodes.get(i).weight();
    }
    return weights;
  }

  /**
   * Counts one key that the old router put on node {@code before} (an index of the old list) and
   * the new router on node {@code after} (an index of the new list). Allocation free unless the
   * key starts a new flow.
   */
  public void add(int before, int after) {
    int from = fromServer[before];
    int to = toServer[after];
    keys++;
    ownedBefore[from]++;
    ownedAfter[to]++;
    if (from != to) {
      moved++;
      flows.increment(from, to);
    }
  }

  /** The servers of both lists: the old list in order, then those only the new list names. */
  public List<Node> servers() {
    return servers;
  }

  /** The server number of node {@code index} of the old list. */
  public int serverBefore(int index) {
    return fromServer[index];
  }

  /** The server number of node {@code index} of the new list. */
  public int serverAfter(int index) {
    return toServer[index];
  }

  /** The weight of server {@code server} in the old list, 0 if the old list does not name it. */
  public int weightBefore(int server) {
    return weightBefore[server];
  }

  /** The weight of server {@code server} in the new list, 0 if the new list does not name it. */
  public int weightAfter(int server) {
    return weightAfter[server];
  }

  /** Keys counted. */
  public long keys() {
    return keys;
  }

  /** Keys whose server changed. */
  public long moved() {
    return moved;
  }

  /** Keys that server {@code server} held before the change. */
  public long ownedBefore(int server) {
    return ownedBefore[server];
  }

  /** Keys that server {@code server} holds after the change. */
  public long ownedAfter(int server) {
    return ownedAfter[server];
  }

  /**
   * The least share of keys any placement must move for this change: the total variation distance
   * between the old and new weight shares (see the class documentation).
   */
  public double optimum() {
    // sum_s max(0, w_s / W - w'_s / W') = sum_s max(0, w_s W' - w'_s W) / (W W'), in integers.
    BigInteger total = BigInteger.valueOf(sum(weightBefore));
    BigInteger totalAfter = BigInteger.valueOf(sum(weightAfter));
    BigInteger excess = BigInteger.ZERO;
    for (int s = 0; s < weightBefore.length; s++) {
      BigInteger d =
          BigInteger.valueOf(weightBefore[s]).multiply(totalAfter)
              .subtract(BigInteger.valueOf(weightAfter[s]).multiply(total));
      if (d.signum() > 0) {
        excess = excess.add(d);
      }
    }
    return new BigDecimal(excess)
        .divide(new BigDecimal(total.multiply(totalAfter)), MathContext.DECIMAL64)
        .doubleValue();
  }

  private static long sum(int[] weights) {
    long sum = 0;
    for (int w : weights) {
      sum += w;
    }
    return sum;
  }

  /**
   * The least number of the counted keys that had to move given how many keys the router put on
   * each server before and after: {@code sum_s max(0, ownedBefore(s) - ownedAfter(s))}.
   */
  public long floor() {
    long sum = 0;
    for (int s = 0; s < ownedBefore.length; s++) {
      sum += Math.max(0, ownedBefore[s] - ownedAfter[s]);
    }
    return sum;
  }

  /** One non-empty flow: {@code keys} keys moved from server {@code from} to server {@code to}. */
  public record Flow(int from, int to, long keys) {}

  /** The non-empty flows, most keys first (then by server numbers). */
  public List<Flow> flows() {
    List<Flow> list = flows.toList();
    list.sort(
        Comparator.comparingLong(Flow::keys)
            .reversed()
            .thenComparingInt(Flow::from)
            .thenComparingInt(Flow::to));
    return list;
  }

  /** Counts per (from, to) pair in an open-addressing table of longs: no boxing per key. */
  private static final class FlowCounts {
    private static final long EMPTY = -1;
    private long[] pairs = newTable(64);
    private long[] counts = new long[64];
    private int size;

    private static long[] newTable(int capacity) {
      long[] table = new long[capacity];
      Arrays.fill(table, EMPTY);
      return table;
    }

    void increment(int from, int to) {
      long pair = ((long) from << 32) | to;
      int mask = pairs.length - 1;
      int i = slot(pair, mask);
      while (pairs[i] != EMPTY && pairs[i] != pair) {
        i = (i + 1) & mask;
      }
      if (pairs[i] == EMPTY) {
        if (2 * (size + 1) > pairs.length) {
          grow();
          increment(from, to);
          return;
        }
        pairs[i] = pair;
        size++;
      }
      counts[i]++;
    }

    private static int slot(long pair, int mask) {
      return (int) (Murmur3.fmix64(pair) & mask);
    }

    private void grow() {
      long[] oldPairs = pairs;
      long[] oldCounts = counts;
      pairs = newTable(oldPairs.length * 2);
      counts = new long[oldPairs.length * 2];
      int mask = pairs.length - 1;
      for (int k = 0; k < oldPairs.length; k++) {
        if (oldPairs[k] != EMPTY) {
          int i = slot(oldPairs[k], mask);
          while (pairs[i] != EMPTY) {
            i = (i + 1) & mask;
          }
          pairs[i] = oldPairs[k];
          counts[i] = oldCounts[k];
        }
      }
    }

    List<Flow> toList() {
      List<Flow> list = new ArrayList<>(size);
      for (int i = 0; i < pairs.length; i++) {
        if (pairs[i] != EMPTY) {
          list.add(new Flow((int) (pairs[i] >>> 32), (int) pairs[i], counts[i]));
        }
      }
      return list;
    }
  }
}
