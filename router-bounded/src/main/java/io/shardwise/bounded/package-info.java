/**
 * Bounded-load node selection over any {@link io.shardwise.routing.Router}'s preference order:
 * {@link io.shardwise.bounded.BoundedLoadSelector} picks, per request, the first node of the key's
 * order whose load is under {@code ceil((1 + epsilon) * (total + 1) * w_j)}, reading loads and
 * availability from a {@link io.shardwise.bounded.LoadView} and reporting into a caller-owned
 * {@link io.shardwise.bounded.Selection}.
 */
package io.shardwise.bounded;
