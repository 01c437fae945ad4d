package io.shardwise.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The Lua script behind {@code incr}: create-with-initial, else add, atomically and in one round
 * trip.
 *
 * <p>KEYS[1] the counter; ARGV[1] delta, ARGV[2] initial value, ARGV[3] TTL in ms (0: none). When
 * the key is absent it is set to the initial value (with the TTL); otherwise {@code INCRBY} adds
 * the delta and keeps the key's TTL. The script returns the counter as {@code GET} reads it, a
 * string: Lua turns integer replies into doubles, which would round counters beyond 2^53.
 */
final class IncrScript {

  static final String SOURCE =
      "local created\n"
          + "if ARGV[3] == '0' then\n"
          + "  created = redis.call('SET', KEYS[1], ARGV[2], 'NX')\n"
          + "else\n"
          + "  created = redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[3])\n"
          + "end\n"
          + "if not created then\n"
          + "  redis.call('INCRBY', KEYS[1], ARGV[1])\n"
          + "end\n"
          + "return redis.call('GET', KEYS[1])\n";

  /** What {@code EVALSHA} takes: the lowercase hex SHA-1 of {@link #SOURCE}. */
  static final String SHA1 = sha1Hex(SOURCE);

  /**
   * The script behind {@code incrIfPresent}: KEYS[1] the counter, ARGV[1] delta. {@code INCRBY}
   * only when the key exists (keeping its TTL), and the counter as {@code GET} reads it; nil, with
   * nothing created, when it is absent.
   */
  static final String IF_PRESENT_SOURCE =
      "if redis.call('EXISTS', KEYS[1]) == 0 then\n"
          + "  return false\n"
          + "end\n"
          + "redis.call('INCRBY', KEYS[1], ARGV[1])\n"
          + "return redis.call('GET', KEYS[1])\n";

  /** The lowercase hex SHA-1 of {@link #IF_PRESENT_SOURCE}. */
  static final String IF_PRESENT_SHA1 = sha1Hex(IF_PRESENT_SOURCE);

  private IncrScript() {}

  static String sha1Hex(String script) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder(40);
      for (byte b : digest) {
        hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-1", e);
    }
  }
}
