package io.shardwise.testing;

import java.util.OptionalLong;

/** One server's lifecycle, as a local process or as a container. */
interface ServerInstance extends AutoCloseable {
  /** What the server was started with. */
  ServerSpec spec();

  /** First start: picks a port, starts, waits until the server answers. */
  void start();

  /** Starts again on the same port; the server must not be running. Waits until it answers. */
  void startAgain();

  void stop();

  void kill();

  void pause();

  void resume();

  boolean isRunning();

  String host();

  int port();

  OptionalLong pid();

  String logTail(int lines);

  /** Stops whatever runs and removes temporary files; idempotent. */
  @Override
  void close();
}
