package io.shardwise.spi;

import java.util.Collection;

/**
 * Told by a backend's connections that values read through them may no longer be current
 * (server-assisted client-side caching: Redis's {@code CLIENT TRACKING}); see {@link
 * Backend#trackReads}. Called on the connections' I/O threads, in order with the replies on each
 * connection: an implementation must be quick and must not block.
 */
public interface Invalidations {

  /**
   * The server says {@code keys}, read through one of the connections, changed, expired or were
   * evicted: whoever wrote them, this client or another.
   */
  void keys(Collection<String> keys);

  /**
   * Nothing read through the connections before now may be trusted: a connection whose reads were
   * tracked was lost or replaced (notices sent meanwhile are lost), or a server flushed its data.
   *
   * @param reason what happened, for logs and meters ("connection lost", "flush", ...)
   */
  void all(String reason);
}
