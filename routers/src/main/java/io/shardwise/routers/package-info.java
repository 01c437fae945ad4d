/**
 * Routers from the consistent-hashing literature, each an immutable {@link
 * io.shardwise.routing.Router} over one validated node list, all hashing keys with {@link
 * io.shardwise.routing.Murmur3}.
 *
 * <table>
 *   <caption>Routers in this package</caption>
 *   <tr><th>router</th><th>lookup</th><th>weights</th><th>on removal of a node</th></tr>
 *   <tr><td>{@link io.shardwise.routers.RendezvousRouter}</td><td>O(n)</td><td>yes</td>
 *       <td>only its keys move</td></tr>
 *   <tr><td>{@link io.shardwise.routers.JumpRouter}</td><td>O(ln n)</td><td>no</td>
 *       <td>only the last bucket can go; others use the failover chain</td></tr>
 *   <tr><td>{@link io.shardwise.routers.MultiProbeRouter}</td><td>O(K ln n)</td><td>no</td>
 *       <td>only its keys move</td></tr>
 *   <tr><td>{@link io.shardwise.routers.MaglevRouter}</td><td>O(1)</td><td>yes</td>
 *       <td>its keys and a few others move</td></tr>
 *   <tr><td>{@link io.shardwise.routers.ModuloRouter}</td><td>O(1)</td><td>no</td>
 *       <td>almost every key moves (baseline only)</td></tr>
 * </table>
 *
 * <p>Placement is a contract: for a given node list and parameters, a router sends a key hash to
 * the same node on every JVM and in every release. Changing a placement rule means a new, named
 * router.
 */
package io.shardwise.routers;
