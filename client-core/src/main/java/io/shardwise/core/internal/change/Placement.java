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
 */
public record Placement(
    Function<List<Node>, Router> routers, HashTag hashTag, String description, BoundedOptions bounded) {

  public Placement {
    Objects.requireNonNull(routers, "routers");
    Objects.requireNonNull(hashTag, "hashTag");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(bounded, "bounded");
  }

  /** The same router and hash tag with other bounded-load options. */
  public Placement withBounded(BoundedOptions options) {
    return new Placement(routers, hashTag, description, options);
  }

  /** The description with the hash tag, if there is one: {@code ketama(libketama), hash tag {}}. */
  public String describe() {
    return hashTag.isEnabled() ? description + ", hash tag " + hashTag : description;
  }
}
