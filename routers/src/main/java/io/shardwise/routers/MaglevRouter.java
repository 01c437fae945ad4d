package io.shardwise.routers;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Maglev hashing (Eisenbud et al., "Maglev: A Fast and Reliable Software Network Load Balancer",
 * NSDI 2016, section 3.4): a lookup table of prime size M that the nodes fill by taking turns,
 * each claiming the next free slot of its own permutation of the slots; a key goes to the owner
 * of slot {@code keyHash mod M}. Lookup is one array read. With equal weights every node owns
 * {@code floor(M/n)} or {@code ceil(M/n)} slots.
 *
 * <p>Removing a node moves its keys and, because the turn order shifts, a few others: the paper
 * trades a little disruption for near-perfect balance. Keep M well above the node count (the
 * paper suggests M &gt; 100 n): the default {@value #DEFAULT_TABLE_SIZE} suits up to about 650
 * nodes.
 *
 * <p>Weights set how often a node takes a turn: a node with half the largest weight claims a
 * slot every second round, so slot counts are proportional to weights.
 *
 * <p><b>Failover chain:</b> the distinct nodes met walking the table forward from the key's
 * slot, wrapping; then any node not met, in list order (with M &gt; n every node owns a slot, so
 * a full walk meets them all).
 */
public final class MaglevRouter implements Router {

  /*
   * Per node i (a contract):
   *   offset_i = Murmur3(UTF-8 of name) mod M
   *   skip_i   = Murmur3(UTF-8 of name, then one 0x00 byte) mod (M - 1) + 1
   * The two hashes are of different inputs, so they are independent as far as Murmur3 is
   * concerned; no node name can contain a NUL, so the second input is never another node's name.
   * Node i's permutation is (offset_i + j * skip_i) mod M, j = 0..M-1; with M prime and skip_i
   * in [1, M-1] it visits every slot once.
   *
   * Population (the paper's Pseudocode 1): in rounds, each node in list order claims the next
   * slot of its permutation that is still free, until all M slots are owned.
   *
   * Weights: the idea of a per-node target that grows by the largest weight on each claim comes
   * from Envoy's weighted Maglev load balancer (maglev_lb.cc); this is our own integer form.
   * Node i claims in round r iff r * w_i >= target_i, and target_i += w_max after each claim.
   * Every node claims in round 0, so every node owns a slot; the heaviest claims every round, so
   * the table fills; equal weights claim every round, which is the paper's algorithm exactly.
   */

  /** The table size of {@link #MaglevRouter(List)}: the prime 2^16 + 1. */
  public static final int DEFAULT_TABLE_SIZE = 65537;

  /** The largest table size accepted: 2^24 slots. */
  public static final int MAX_TABLE_SIZE = 1 << 24;

  private final List<Node> nodes;
  private final int tableSize;
  /** Slot owners when every node index fits in a char (n <= 65536), else null. */
  private final char[] compactTable;
  /** Slot owners when {@link #compactTable} is null. */
  private final int[] wideTable;
  /**
   * For each slot, how many slots back (wrapping) its owner's previous slot is, or M if the owner
   * has only this one: a walk that has passed {@code step} slots meets a new owner exactly where
   * {@code sinceOwner > step}, so it needs no set of owners seen.
   */
  private final int[] sinceOwner;

  /**
   * A Maglev router with a table of {@value #DEFAULT_TABLE_SIZE} slots.
   *
   * @throws IllegalArgumentException if the list is empty, names a server twice, or has
   *     {@value #DEFAULT_TABLE_SIZE} nodes or more
   */
  public MaglevRouter(List<Node> nodes) {
    this(nodes, DEFAULT_TABLE_SIZE);
  }

  /**
   * A Maglev router with a table of {@code tableSize} slots.
   *
   * @throws IllegalArgumentException if {@code tableSize} is not a prime larger than the node
   *     count or is above {@link #MAX_TABLE_SIZE}, or the list is empty or names a server twice
   */
  public MaglevRouter(List<Node> nodes, int tableSize) {
    this(nodes, tableSize, null, null);
  }

  /**
   * A Maglev router with each node's permutation given explicitly, for golden tests.
   *
   * @param offsets per node, in [0, tableSize); null to hash the names
   * @param skips per node, in [1, tableSize - 1]; null to hash the names
   */
  MaglevRouter(List<Node> nodes, int tableSize, int[] offsets, int[] skips) {
    this.nodes = ServerList.validate(nodes);
    int n = this.nodes.size();
    checkTableSize(tableSize, n);
    this.tableSize = tableSize;
    if (offsets == null) {
      offsets = new int[n];
      skips = new int[n];
      for (int i = 0; i < n; i++) {
        Node node = this.nodes.get(i);
        offsets[i] = (int) Long.remainderUnsigned(RouterNodes.nameHash(node), tableSize);
        skips[i] = (int) Long.remainderUnsigned(skipHash(node), tableSize - 1) + 1;
      }
    } else {
      checkPermutations(offsets, skips, n, tableSize);
    }
    int[] weights = new int[n];
    for (int i = 0; i < n; i++) {
      weights[i] = this.nodes.get(i).weight();
    }
    int[] table = populate(tableSize, offsets, skips, weights);
    this.sinceOwner = sinceOwner(table, n);
    if (n <= Character.MAX_VALUE + 1) {
      this.compactTable = new char[tableSize];
      for (int s = 0; s < tableSize; s++) {
        compactTable[s] = (char) table[s];
      }
      this.wideTable = null;
    } else {
      this.compactTable = null;
      this.wideTable = table;
    }
  }

  private static long skipHash(Node node) {
    byte[] name = node.name().getBytes(StandardCharsets.UTF_8);
    return Murmur3.INSTANCE.hash(Arrays.copyOf(name, name.length + 1));
  }

  private static void checkTableSize(int tableSize, int n) {
    if (tableSize > MAX_TABLE_SIZE) {
      throw new IllegalArgumentException(
          "maglev table size must be at most " + MAX_TABLE_SIZE + " but was " + tableSize);
    }
    if (tableSize <= n || !isPrime(tableSize)) {
      throw new IllegalArgumentException(
          "maglev table size must be a prime larger than the node count "
              + n
              + " but was "
              + tableSize);
    }
  }

  private static void checkPermutations(int[] offsets, int[] skips, int n, int tableSize) {
    if (skips == null || offsets.length != n || skips.length != n) {
      throw new IllegalArgumentException("need one offset and one skip per node (" + n + ")");
    }
    for (int i = 0; i < n; i++) {
      if (offsets[i] < 0 || offsets[i] >= tableSize) {
        throw new IllegalArgumentException(
            "offset must be in [0, " + tableSize + ") but was " + offsets[i]);
      }
      if (skips[i] < 1 || skips[i] >= tableSize) {
        throw new IllegalArgumentException(
            "skip must be in [1, " + (tableSize - 1) + "] but was " + skips[i]);
      }
    }
  }

  static boolean isPrime(int m) {
    if (m < 2) {
      return false;
    }
    if (m % 2 == 0) {
      return m == 2;
    }
    for (int d = 3; (long) d * d <= m; d += 2) {
      if (m % d == 0) {
        return false;
      }
    }
    return true;
  }

  /** Fills the table; see the notes at the top of the class. */
  static int[] populate(int tableSize, int[] offsets, int[] skips, int[] weights) {
    int n = offsets.length;
    int maxWeight = Arrays.stream(weights).max().orElseThrow();
    int[] table = new int[tableSize];
    Arrays.fill(table, -1);
    int[] next = offsets.clone();
    long[] target = new long[n];
    int filled = 0;
    for (long round = 0; ; round++) {
      for (int i = 0; i < n; i++) {
        if (round * weights[i] < target[i]) {
          continue;
        }
        target[i] += maxWeight;
        int slot = next[i];
        while (table[slot] >= 0) {
          slot += skips[i];
          if (slot >= tableSize) {
            slot -= tableSize;
          }
        }
        table[slot] = i;
        slot += skips[i];
        next[i] = slot >= tableSize ? slot - tableSize : slot;
        if (++filled == tableSize) {
          return table;
        }
      }
    }
  }

  /** See {@link #sinceOwner}. */
  private static int[] sinceOwner(int[] table, int n) {
    int m = table.length;
    int[] last = new int[n];
    for (int s = 0; s < m; s++) {
      last[table[s]] = s;
    }
    int[] since = new int[m];
    for (int s = 0; s < m; s++) {
      int previous = last[table[s]]; // at or after s on an owner's first slot: wrap around
      since[s] = previous < s ? s - previous : s - previous + m;
      last[table[s]] = s;
    }
    return since;
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public KeyHasher hasher() {
    return Murmur3.INSTANCE;
  }

  /** Number of slots, M. */
  public int tableSize() {
    return tableSize;
  }

  /** Index of the node owning {@code slot}, in [0, {@link #tableSize()}). */
  public int slotOwner(int slot) {
    return compactTable != null ? compactTable[slot] : wideTable[slot];
  }

  /** Number of slots each node owns, by node index (a fresh array). */
  public int[] slotCounts() {
    int[] counts = new int[nodes.size()];
    for (int s = 0; s < tableSize; s++) {
      counts[slotOwner(s)]++;
    }
    return counts;
  }

  @Override
  public int primary(long keyHash) {
    int slot = (int) Long.remainderUnsigned(keyHash, tableSize);
    return compactTable != null ? compactTable[slot] : wideTable[slot];
  }

  @Override
  public int preferenceOrder(long keyHash, int[] out) {
    return walk(keyHash, null, out, Math.min(out.length, nodes.size()));
  }

  /** The first {@code n} distinct owners forward from the key's slot. Allocation free. */
  @Override
  public int replicas(long keyHash, int n, int[] out) {
    return walk(keyHash, null, out, Router.replicaCount(n, nodes.size(), out.length));
  }

  /**
   * Walks the table forward from the key's slot to the first slot whose owner is available:
   * about {@code 1 / (1 - f)} slots with a fraction f of the nodes out. Allocation free.
   */
  @Override
  public int walkToAvailable(long keyHash, IntPredicate available, int[] walked) {
    Objects.checkFromIndexSize(0, nodes.size(), walked.length);
    return walk(keyHash, available, walked, nodes.size());
  }

  /**
   * Writes the owners met walking the table forward from the key's slot, each once, until
   * {@code want} are written or {@code available} (if not null) accepts the node just written.
   * Every node owns a slot (each claims one in the first round of {@link #populate}), so a whole
   * lap meets them all. Returns the number written and not accepted.
   */
  private int walk(long keyHash, IntPredicate available, int[] out, int want) {
    int count = 0;
    int slot = (int) Long.remainderUnsigned(keyHash, tableSize);
    for (int step = 0; step < tableSize && count < want; step++) {
      // The owner's previous slot is more than `step` slots back: not on the walk so far.
      if (sinceOwner[slot] > step) {
        int owner = slotOwner(slot);
        out[count] = owner;
        if (available != null && available.test(owner)) {
          return count;
        }
        count++;
      }
      if (++slot == tableSize) {
        slot = 0;
      }
    }
    return count;
  }

  /** {@code maglev(M=<table size>)}. */
  @Override
  public String describe() {
    return "maglev(M=" + tableSize + ")";
  }

  @Override
  public String toString() {
    return describe() + " over " + nodes.size() + " nodes";
  }
}
