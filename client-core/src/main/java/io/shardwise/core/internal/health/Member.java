package io.shardwise.core.internal.health;

import io.shardwise.client.NodeState;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One server and what the client keeps for it for as long as it is in the fleet, across server
 * list changes: its connection, its health, its failback journal, old-copy marks and fence. A
 * topology places members by index; a member in two successive topologies is the same object, so
 * a change of the server list carries its state over.
 */
public final class Member {

  /** The server; a reweight or a new name replaces it with the same server (the same address). */
  public volatile Node node;

  public final NodeConnection connection;

  /** Set by {@link FleetHealth#admit}. */
  NodeHealth health;

  /** Set by {@link Failback#admit}. */
  Failback.Slot failback;

  /**
   * Requests of replicated reads and writes under way on it: with {@link #recentReads}, the load
   * the power of two choices compares when it picks the replica a read goes to.
   */
  public final AtomicInteger inFlight = new AtomicInteger();

  /** Replicated reads sent to it over the last second. */
  public final RecentReads recentReads = new RecentReads();

  /**
   * Came back empty (restarted or flushed) and is being refilled: reads of the keys it is a
   * replica of try it first, so that each such read that misses there puts the copy back ({@code
   * heal.Refills}).
   */
  public volatile boolean refilling;

  /** Closed: no longer in any topology in use. Its connection is closed and it is not probed. */
  public volatile boolean retired;

  /** No member: an empty list of members, shared. */
  public static final Member[] NONE = new Member[0];

  public Member(Node node, NodeConnection connection) {
    this.node = node;
    this.connection = connection;
  }

  /**
   * What identifies the server across lists: its address (host ignoring case, and port). A server
   * whose weight or name changes is the same server, with the same data: it keeps its member, and
   * a key that stays on it has not moved.
   */
  public static String identity(Node node) {
    return node.host().toLowerCase(Locale.ROOT) + "#" + node.port();
  }

  /** Whether {@code m} is one of {@code members}. */
  public static boolean in(Member[] members, Member m) {
    return in(members, members.length, m);
  }

  /** Whether {@code m} is one of the first {@code count} of {@code members}. */
  public static boolean in(Member[] members, int count, Member m) {
    for (int i = 0; i < Math.min(count, members.length); i++) {
      if (members[i] == m) {
        return true;
      }
    }
    return false;
  }

  /** Whether requests may be routed to it: healthy, not ejected or being probed. */
  public boolean available() {
    return health.available();
  }

  public NodeState state() {
    return health.state;
  }

  /** Closed: no longer in any topology in use. */
  public boolean retired() {
    return retired;
  }

  /** The keys whose copy here must not be read (see {@link DirtyCopies}). */
  public DirtyCopies oldCopies() {
    return failback.dirty;
  }

  /** Whether the copy of {@code key} here may be older than a value this client wrote elsewhere. */
  public boolean holdsOldCopy(String key) {
    return failback.dirty.contains(key);
  }

  @Override
  public String toString() {
    return node.name();
  }
}
