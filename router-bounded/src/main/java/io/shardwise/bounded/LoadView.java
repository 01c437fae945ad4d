package io.shardwise.bounded;

/**
 * The per-node load and availability that a {@link BoundedLoadSelector} reads while it walks a
 * key's preference order. Node indexes are positions in the router's {@link
 * io.shardwise.routing.Router#nodes() nodes()}.
 *
 * <h2>What to count</h2>
 *
 * <p>Count the requests each node was sent in a short sliding window (for example the last
 * second, in a ring of ten 100 ms buckets), not the requests in flight. Envoy and HAProxy count
 * in-flight requests because a proxy sees the whole fleet's traffic at once. In one client
 * process the number in flight per node is mostly 0 to 2: the total stays tiny, so every cap is
 * 1 or a little more, and a node with nothing in flight is always eligible. A hot key's primary,
 * idle between its fast requests, then keeps taking every request, and the spills that do happen
 * follow momentary overlaps instead of sustained load. A window of recent requests measures the
 * share of traffic each node receives, which is the quantity the bound limits: with it, a node
 * gets at most about {@code (1 + epsilon)} times its weighted share of the window.
 *
 * <p>Implementations are read concurrently by every thread that selects, and must not allocate.
 * The values need not be a consistent snapshot: a total read a moment before or after a node's
 * load only moves a cap by a request or so.
 */
public interface LoadView {

  /** Current load of node {@code node}: requests sent to it in the window; never negative. */
  long load(int node);

  /**
   * Current total load over all nodes of the router, not counting the request being placed. A
   * node that is unavailable usually carries none, so counting or omitting it changes little.
   */
  long total();

  /**
   * Whether node {@code node} may take requests now (for example: its circuit breaker is not
   * open). An unavailable node is skipped: it is neither picked nor counted as a probe. Every node
   * is available by default.
   */
  default boolean isAvailable(int node) {
    return true;
  }
}
