package io.shardwise.spi;

import java.util.Objects;

/**
 * Which run of its data a server is in, read with a cheap status request ({@link
 * NodeConnection#serverRun()}): {@code id} changes when the server restarts or its data is flushed,
 * so that a client that reads a different id than before knows the server came back empty (or
 * nearly: a restart from Redis's AOF or RDB changes the id too, and keeps the data, which {@code
 * items} then shows).
 *
 * @param id what this run of the server's data is known by: for memcached its process id, start
 *     time and count of {@code flush_all} commands ({@code stats}); for Redis its {@code run_id} and
 *     count of {@code FLUSHALL} and {@code FLUSHDB} commands ({@code INFO})
 * @param items the keys the server holds now, all of them: this client's and every other
 *     application's ({@code curr_items}; Redis: the keys of every database)
 */
public record ServerRun(String id, long items) {

  public ServerRun {
    Objects.requireNonNull(id, "id");
    if (items < 0) {
      throw new IllegalArgumentException("items must be >= 0 but was " + items);
    }
  }
}
