package io.shardwise.core.sources;

import io.shardwise.routing.Node;
import java.util.List;
import java.util.Optional;

/**
 * Where a client's server list comes from, read anew at every refresh of a {@link
 * ServerListWatcher}: a watched file ({@link ServersFile}) or a DNS name ({@link ServersDns}).
 * Programmatic changes need no source: call {@link
 * io.shardwise.client.AsyncCacheClient#updateServers} directly.
 */
public interface ServerListSource {

  /**
   * The list the source holds now, or empty when it has no settled answer yet (a file that is
   * still being written). The list may equal the one in force; the watcher skips it then.
   *
   * @throws Exception when the list cannot be read or is not a valid list: the message names the
   *     source and the problem; the list in force stays
   */
  Optional<List<Node>> read() throws Exception;

  /** What the source is, for logs: {@code servers file /etc/app/servers.txt}. */
  String describe();
}
