/**
 * The routing client's pieces. Internal: not an API, may change without notice.
 *
 * <p>From the bottom up, each package importing only those below it (and the option types of
 * {@code io.shardwise.core}): {@code health} (members, failure detection, failback journals and
 * old-copy marks), {@code spill} (bounded loads), {@code route} (topology snapshots and the
 * routing decisions), {@code change} (server-list changes and warm-up copies), {@code exec}
 * (sending what was decided). {@code io.shardwise.core.RoutingClient} sits on top.
 */
package io.shardwise.core.internal;

