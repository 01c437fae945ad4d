package io.shardwise.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Command lines for local processes and containers. */
final class ServerCommands {
  static final String LOOPBACK = "127.0.0.1";

  private ServerCommands() {}

  static List<String> local(ServerSpec spec, Path executable, int port, Path dir, boolean root) {
    List<String> command = new ArrayList<>();
    command.add(executable.toString());
    if (spec.kind() == ServerKind.MEMCACHED) {
      command.addAll(List.of("-l", LOOPBACK, "-p", Integer.toString(port)));
      command.addAll(memcachedOptions(spec));
      if (root) {
        // memcached refuses to run as root unless told which user to run as.
        command.addAll(List.of("-u", "root"));
      }
    } else {
      command.addAll(List.of("--bind", LOOPBACK, "--port", Integer.toString(port)));
      command.addAll(List.of("--dir", dir.toString()));
      command.addAll(redisOptions(spec));
    }
    command.addAll(spec.extraArgs());
    return command;
  }

  /**
   * Container command: the images' entrypoints prepend {@code memcached} to arguments starting with
   * {@code -}, and run {@code redis-server ...} as the redis user.
   */
  static List<String> container(ServerSpec spec) {
    List<String> command = new ArrayList<>();
    if (spec.kind() == ServerKind.MEMCACHED) {
      command.addAll(List.of("-p", Integer.toString(spec.kind().containerPort())));
      command.addAll(memcachedOptions(spec));
    } else {
      command.addAll(
          List.of("redis-server", "--port", Integer.toString(spec.kind().containerPort())));
      command.addAll(List.of("--dir", "/data"));
      command.addAll(redisOptions(spec));
    }
    command.addAll(spec.extraArgs());
    return command;
  }

  private static List<String> memcachedOptions(ServerSpec spec) {
    return List.of(
        "-U", "0", "-t", "2", "-c", "1024", "-m", Integer.toString(spec.memoryMegabytes()));
  }

  private static List<String> redisOptions(ServerSpec spec) {
    List<String> options =
        new ArrayList<>(
            List.of(
                "--daemonize", "no",
                "--protected-mode", "no",
                "--save", "",
                "--logfile", "",
                "--maxmemory", spec.memoryMegabytes() + "mb"));
    if (spec.persistent()) {
      options.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
    } else {
      options.addAll(List.of("--appendonly", "no"));
    }
    return options;
  }
}
