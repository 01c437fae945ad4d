package io.shardwise.spring.boot.it;

/**
 * What the {@code *ServiceConnectionIT} containers share: they run on the host's network (the CI
 * engine has no bridge network, and no test traffic leaves loopback), where Testcontainers maps no
 * port, so each server listens on {@code 127.0.0.1} at its own default port, which the starter's
 * factory then names. No test server of {@code test-servers} takes those ports.
 */
final class ServiceConnectionContainers {
  static final String LOOPBACK = "127.0.0.1";
  static final String HOST_NETWORK = "host";
  static final int MEMCACHED_PORT = 11211;
  static final int REDIS_PORT = 6379;

  private ServiceConnectionContainers() {}
}
