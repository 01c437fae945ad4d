/**
 * Real memcached and Redis servers for tests.
 *
 * <p>{@link io.shardwise.testing.ServerFleet} is a JUnit 5 extension (and a plain {@code
 * AutoCloseable}) that starts N servers, either as Testcontainers containers when a Docker engine
 * is reachable or as local {@code memcached} / {@code redis-server} processes on free loopback
 * ports. Each {@link io.shardwise.testing.ServerHandle} can be stopped, killed, paused, resumed and
 * restarted on the same port, and offers raw protocol access that bypasses any client under test.
 * {@link io.shardwise.testing.Twemproxy} starts a {@code nutcracker} in front of servers. {@link
 * io.shardwise.testing.Concurrently} makes calls at once from several threads.
 *
 * <p>Only the types in this package that are {@code public} are API; everything else is an
 * implementation detail.
 */
package io.shardwise.testing;
