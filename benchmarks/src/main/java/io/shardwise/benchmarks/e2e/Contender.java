package io.shardwise.benchmarks.e2e;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;

/**
 * One client under test, reduced to the calls the workloads make. Implementations add nothing of
 * their own beyond adapting types, so that a pair does the same work. Values are byte arrays on
 * both sides: Shardwise with {@code Codecs.bytes()}, spymemcached with its default transcoder
 * (which stores a byte array as is, with the same flags), Lettuce with {@code ByteArrayCodec}.
 */
interface Contender extends AutoCloseable {

  /** Short label for tables, e.g. {@code spymemcached}. */
  String name();

  /** The value of {@code key}, or null on a miss; waits for the reply. */
  byte[] get(String key) throws Exception;

  /** Stores {@code value} without expiry; waits for the reply and fails unless it was stored. */
  void set(String key, byte[] value) throws Exception;

  /** Sends a get; the future's value is the {@code byte[]} or null. */
  Future<?> getAsync(String key);

  /** Sends a set without expiry; the future fails (or yields {@code false}) if not stored. */
  Future<?> setAsync(String key, byte[] value);

  /** The hits among {@code keys}, fetched in one batched request per server; waits. */
  Map<String, ?> getMulti(List<String> keys) throws Exception;

  /** The {@code host:port} that {@code key} goes to, where the client can say. */
  default Optional<String> serverOf(String key) {
    return Optional.empty();
  }

  /**
   * What happened inside the client since the last call that bears on the numbers (node
   * ejections, requests sent elsewhere, failed requests the caller did not see), or an empty
   * string.
   */
  default String drainEvents() {
    return "";
  }

  /**
   * Get requests this client has sent to the servers so far, where it counts them (a client with a
   * near cache sends fewer than it is asked for), or -1.
   */
  default long serverGets() {
    return -1;
  }

  @Override
  void close();
}
