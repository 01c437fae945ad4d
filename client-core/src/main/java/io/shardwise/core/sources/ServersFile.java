package io.shardwise.core.sources;

import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A file holding a server list in {@link ServerList} syntax: one entry per line or comma separated,
 * {@code #} comments, as a libketama or twemproxy server file.
 *
 * <pre>
 * # /etc/app/cache-servers.txt
 * 10.0.0.1:11211
 * 10.0.0.2:11211   # rack b
 * cache-c=10.0.0.3:11211:2
 * </pre>
 *
 * <p>The file is read whole at every refresh and opened by its path each time, so an editor or a
 * tool that replaces it by renaming a new file over it (vim, {@code sed -i}, Ansible, a Kubernetes
 * ConfigMap volume, which swaps a symbolic link) is seen like one that rewrites it in place. Its
 * content, not its modification time, decides whether it changed: a server list is a few
 * kilobytes, and times can be coarse (whole seconds on some file systems) or unchanged by a swapped
 * link.
 *
 * <p>A changed content is returned only once two reads in a row, one refresh apart, have found the
 * same text: a list written in place is read while half written, and a half-written list can parse
 * (three of five lines) and would move keys twice. A list that does not parse is refused with the
 * parser's message and tried again when the file changes; a file that is missing (deleted, or
 * between the two steps of a replacement) is a failed read, and the list in force stays.
 */
public final class ServersFile implements ServerListSource {

  private final Path path;
  private String previous;

  private ServersFile(Path path) {
    this.path = Objects.requireNonNull(path, "path");
  }

  /** The file at {@code path}; it need not exist yet. */
  public static ServersFile of(Path path) {
    return new ServersFile(path);
  }

  /**
   * Reads and parses the file once, for the initial list.
   *
   * @throws IOException when it cannot be read
   * @throws IllegalArgumentException when it is not a valid server list
   */
  public static List<Node> readNow(Path path) throws IOException {
    return ServerList.parse(Files.readString(path, StandardCharsets.UTF_8));
  }

  public Path path() {
    return path;
  }

  @Override
  public synchronized Optional<List<Node>> read() throws IOException {
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      previous = null;
      throw new NoSuchFileException(describe() + " does not exist (deleted, or being replaced)");
    } catch (IOException e) {
      previous = null;
      throw new IOException(describe() + " cannot be read: " + e, e);
    }
    if (!text.equals(previous)) {
      previous = text; // changed since the last read: wait one refresh for the writer to finish
      return Optional.empty();
    }
    try {
      return Optional.of(ServerList.parse(text));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(describe() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String describe() {
    return "servers file " + path;
  }

  @Override
  public String toString() {
    return describe();
  }
}
