package io.shardwise.memcached;

import io.shardwise.spi.KeyRules;

/** The memcached wire protocol a connection speaks. */
public enum MemcachedProtocol {

  /**
   * The text (ASCII) protocol: what every memcached and twemproxy speaks. Flags are limited to
   * {@code 0..2^31-1} because spymemcached writes them as signed decimals.
   */
  TEXT(KeyRules.MEMCACHED),

  /**
   * The binary protocol: full 32-bit flags; deprecated by memcached in favour of the meta protocol.
   */
  BINARY(KeyRules.MEMCACHED_BINARY);

  private final KeyRules keyRules;

  MemcachedProtocol(KeyRules keyRules) {
    this.keyRules = keyRules;
  }

  /** The keys this protocol can carry. */
  public KeyRules keyRules() {
    return keyRules;
  }
}
