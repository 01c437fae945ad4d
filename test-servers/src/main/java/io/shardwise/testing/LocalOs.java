package io.shardwise.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The few operating-system facilities local mode needs: lookup, signals, /proc. */
final class LocalOs {
  static final Path SHELL = Path.of("/bin/sh");

  /** Searched after the PATH: Debian puts nutcracker in /usr/sbin, often not on a user's PATH. */
  private static final List<String> EXTRA_DIRECTORIES =
      List.of(
          "/usr/bin",
          "/usr/sbin",
          "/usr/local/bin",
          "/usr/local/sbin",
          "/bin",
          "/sbin",
          "/opt/homebrew/bin");

  private LocalOs() {}

  static List<Path> searchDirectories() {
    Set<String> directories = new LinkedHashSet<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String entry : path.split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          directories.add(entry);
        }
      }
    }
    directories.addAll(EXTRA_DIRECTORIES);
    List<Path> result = new ArrayList<>();
    for (String directory : directories) {
      result.add(Path.of(directory));
    }
    return result;
  }

  static Optional<Path> findExecutable(String name) {
    for (Path directory : searchDirectories()) {
      Path candidate = directory.resolve(name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Resolves {@code override} if given, else looks {@code name} up; fails with a clear message. */
  static Path requireExecutable(Path override, String name, String debianPackage) {
    if (override != null) {
      if (!Files.isExecutable(override)) {
        throw new ServerStartupException(override + " is not an executable file");
      }
      return override;
    }
    return findExecutable(name)
        .orElseThrow(
            () ->
                new ServerStartupException(
                    "no '"
                        + name
                        + "' executable found in "
                        + searchDirectories()
                        + "; install it (Debian: apt-get install "
                        + debianPackage
                        + "), or run with a Docker engine and -D"
                        + ServerMode.PROPERTY
                        + "=docker"));
  }

  /** True when this JVM runs as uid 0 (memcached then needs {@code -u root}). */
  static boolean isRoot() {
    try {
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      return Integer.valueOf(0).equals(uid);
    } catch (IOException | RuntimeException e) {
      return "root".equals(System.getProperty("user.name"));
    }
  }

  static boolean isWindows() {
    return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
  }

  /** Sends a signal such as {@code STOP} or {@code CONT} with the shell's {@code kill}. */
  static void signal(long pid, String signal) {
    ProcessBuilder builder =
        new ProcessBuilder(
                SHELL.toString(), "-c", "kill -s \"$0\" \"$1\"", signal, Long.toString(pid))
            .redirectErrorStream(true);
    try {
      Process kill = builder.start();
      kill.getOutputStream().close();
      String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!kill.waitFor(10, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException("kill -s " + signal + " " + pid + " did not finish");
      }
      if (kill.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -s "
                + signal
                + " "
                + pid
                + " failed (exit "
                + kill.exitValue()
                + "): "
                + output.trim());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -s " + signal + " " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + pid, e);
    }
  }

  /**
   * The state letter from {@code /proc/<pid>/stat} ({@code R}, {@code S}, {@code T} for stopped,
   * {@code Z}, ...), or {@code '?'} where /proc is not available.
   */
  static char processState(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      int afterName = stat.lastIndexOf(')');
      return afterName >= 0 && afterName + 2 < stat.length() ? stat.charAt(afterName + 2) : '?';
    } catch (IOException | RuntimeException e) {
      return '?';
    }
  }

  /**
   * Whether {@code pid} owns a socket listening on TCP {@code port}, read from {@code
   * /proc/net/tcp{,6}} and {@code /proc/<pid>/fd}; empty where /proc cannot tell.
   */
  static Optional<Boolean> ownsListeningSocket(long pid, int port) {
    Set<String> inodes = new HashSet<>();
    boolean readAny = false;
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(table));
      } catch (IOException | RuntimeException e) {
        continue;
      }
      readAny = true;
      for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
        String[] fields = line.trim().split("\\s+");
        if (fields.length < 10 || !fields[3].equals("0A")) {
          continue;
        }
        String local = fields[1];
        int colon = local.lastIndexOf(':');
        if (colon > 0 && Integer.parseInt(local.substring(colon + 1), 16) == port) {
          inodes.add(fields[9]);
        }
      }
    }
    Path fds = Path.of("/proc", Long.toString(pid), "fd");
    if (!readAny || !Files.isDirectory(fds)) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
      for (Path fd : entries) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")
              && inodes.contains(target.substring(8, target.length() - 1))) {
            return Optional.of(true);
          }
        } catch (IOException | RuntimeException e) {
          // The descriptor was closed meanwhile.
        }
      }
      return Optional.of(false);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  static void deleteRecursively(Path root) {
    if (root == null || !Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException | UncheckedIOException e) {
      System.err.println("shardwise-test-servers: could not delete " + root + ": " + e);
    }
  }

  /** The last {@code count} lines of {@code text}. */
  static String lastLines(String text, int count) {
    String[] lines = text.split("\r?\n");
    int from = Math.max(0, lines.length - count);
    return String.join("\n", Arrays.asList(lines).subList(from, lines.length));
  }

  /** The last {@code count} lines of a file, or a note saying why there are none. */
  static String lastLines(Path file, int count) {
    try {
      if (!Files.exists(file)) {
        return "(no " + file.getFileName() + ")";
      }
      return lastLines(new String(Files.readAllBytes(file), StandardCharsets.UTF_8), count);
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
