/**
 * memcached node connections on spymemcached 2.12: {@link io.shardwise.memcached.MemcachedBackend}
 * with its {@link io.shardwise.memcached.MemcachedOptions}, and the exceptions its connections fail
 * with.
 *
 * <p>Failures come in two kinds: {@link io.shardwise.memcached.MemcachedUnavailableException} (with
 * {@link io.shardwise.memcached.MemcachedTimeoutException}) when the server did not answer, and
 * {@link io.shardwise.memcached.MemcachedServerErrorException} when it answered with an error. Only
 * the first says something about the server's health.
 *
 * <p>Only the public types of this package are API.
 */
package io.shardwise.memcached;
