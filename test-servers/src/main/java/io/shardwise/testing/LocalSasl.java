package io.shardwise.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The SASL set-up of a local memcached started with {@code -S}: a {@code memcached.conf} naming
 * the PLAIN mechanism and a sasldb, found through {@code SASL_CONF_PATH}, and the sasldb made with
 * Cyrus SASL's {@code saslpasswd2} (Debian package {@code sasl2-bin}).
 */
final class LocalSasl {
  /** memcached's SASL application name: the realm-less users of the sasldb are looked up for it. */
  private static final String APPLICATION = "memcached";

  private LocalSasl() {}

  /** The directory {@code SASL_CONF_PATH} points at, inside the server's own directory. */
  static Path directory(Path serverDirectory) {
    return serverDirectory.resolve("sasl");
  }

  /** Writes {@code memcached.conf} and a sasldb holding {@code users} (name to password). */
  static void prepare(Path serverDirectory, Map<String, String> users) {
    Path saslpasswd2 = LocalOs.requireExecutable(null, "saslpasswd2", "sasl2-bin");
    Path dir = directory(serverDirectory);
    Path db = dir.resolve("sasldb2");
    try {
      Files.createDirectories(dir);
      Files.writeString(
          dir.resolve(APPLICATION + ".conf"),
          "mech_list: plain\nsasldb_path: " + db + "\n",
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the SASL configuration in " + dir, e);
    }
    for (Map.Entry<String, String> user : users.entrySet()) {
      addUser(saslpasswd2, db, user.getKey(), user.getValue());
    }
  }

  private static void addUser(Path saslpasswd2, Path db, String user, String password) {
    List<String> command =
        List.of(saslpasswd2.toString(), "-p", "-a", APPLICATION, "-c", "-f", db.toString(), user);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      // -p: the password is read from stdin, without a trailing newline.
      process.getOutputStream().write(password.getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new ServerStartupException(String.join(" ", command) + " did not finish in 30 s");
      }
      if (process.exitValue() != 0) {
        throw new ServerStartupException(
            String.join(" ", command) + " failed (exit " + process.exitValue() + "): " + output);
      }
    } catch (IOException e) {
      throw new ServerStartupException("cannot run " + String.join(" ", command) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServerStartupException("interrupted while running saslpasswd2", e);
    }
  }
}
