package io.shardwise.core.internal.change;

import io.shardwise.core.BoundedOptions;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What places keys besides the server list: the router, built for each list, and the hash tag. A
 * change of either is a change of placement like a change of the list ({@link Topologies#update}).
 * With them, the bounded-load options, which place spilled reads but no key: a change of those
 * alone moves no key, and carries the registry of spilled copies over ({@link NextTopology}).
 *
 * @param routers builds the router for a server list
 * @param hashTag the part of a key that is hashed
 * @param description the router as the client names it ({@code ketama(libketama)}), for the change
 *     and its log line
 * @param bounded the bounded-load options
 * @param replicas how many servers store each key: a change of it moves the replica sets as a
 *     change of router does
 */
public record Placement(
    Function<List<Node>, Router> routers, HashTag hashTag, String description, BoundedOptions bounded, int replicas) {

  public Placement {
    Objects.requireNonNull(routers, "routers");
    Objects.requireNonNull(hashTag, "hashTag");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(bounded, "bounded");
    if (replicas < 1) {
      throw new IllegalArgumentException("replicas must be >= 1 but was " + replicas);
    }
  }

  /** The same placement with other bounded-load options. */
  public Placement withBounded(BoundedOptions options) {
    return new Placement(routers, hashTag, description, options, replicas);
  }

  /** The same router, hash tag and bounded-load options, each key on {@code n} servers. */
  public Placement withReplicas(int n) {
    return new Placement(routers, hashTag, description, bounded, n);
  }

  /**
   * The description with the hash tag and the replicas, where they are not the defaults: {@code
   * ketama(libketama), hash tag {}, replicas 2}.
   */
  public String describe() {
    String d = hashTag.isEnabled() ? description + ", hash tag " + hashTag : description;
    return replicas > 1 ? d + ", replicas " + replicas : d;
  }
}
