package io.shardwise.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
      if (spec.sasl()) {
        // SASL over the binary protocol only; the SASL configuration comes from SASL_CONF_PATH.
        command.add("-S");
      }
    } else {
      command.addAll(List.of("--bind", LOOPBACK));
      if (spec.tls() != null) {
        // TLS only: no plaintext port at all.
        ServerTls tls = spec.tls();
        command.addAll(List.of("--port", "0", "--tls-port", Integer.toString(port)));
        command.addAll(List.of("--tls-cert-file", tls.certificateFile().toString()));
        command.addAll(List.of("--tls-key-file", tls.privateKeyFile().toString()));
        command.addAll(List.of("--tls-ca-cert-file", tls.caCertificateFile().toString()));
        String clientAuth = tls.requireClientCertificates() ? "yes" : "no";
        command.addAll(List.of("--tls-auth-clients", clientAuth));
      } else {
        command.addAll(List.of("--port", Integer.toString(port)));
      }
      command.addAll(List.of("--dir", dir.toString()));
      command.addAll(redisOptions(spec));
    }
    command.addAll(spec.extraArgs());
    return command;
  }

  /** The environment a local server needs beyond the JVM's: SASL_CONF_PATH for SASL memcached. */
  static Map<String, String> localEnvironment(ServerSpec spec, Path dir) {
    return spec.sasl() ? Map.of("SASL_CONF_PATH", LocalSasl.directory(dir).toString()) : Map.of();
  }

  /**
   * Container command for host networking: the server listens on {@code 127.0.0.1:port} of the
   * host itself. The images' entrypoints prepend {@code memcached} to arguments starting with
   * {@code -}, and run {@code redis-server ...} as the redis user in {@code /data}.
   */
  static List<String> container(ServerSpec spec, int port) {
    List<String> command = new ArrayList<>();
    if (spec.kind() == ServerKind.MEMCACHED) {
      command.addAll(List.of("-l", LOOPBACK, "-p", Integer.toString(port)));
      command.addAll(memcachedOptions(spec));
    } else {
      command.addAll(
          List.of("redis-server", "--bind", LOOPBACK, "--port", Integer.toString(port)));
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
