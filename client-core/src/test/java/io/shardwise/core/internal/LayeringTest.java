package io.shardwise.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The pieces of the routing client import only the pieces below them: health, spill, route,
 * change, heal, near, exec, from the bottom up; from {@code io.shardwise.core} only the option types, never
 * the client, its builder or the configuration. Read from the sources, so that an import that
 * breaks the order fails the build.
 */
class LayeringTest {

  private static final List<String> ORDER = List.of("health", "spill", "route", "change", "heal", "near", "exec");
  private static final Set<String> OPTIONS =
      Set.of("FailoverOptions", "TopologyOptions", "BoundedOptions", "FailureMode", "RejoinPolicy", "ReplicaReads", "ReplicaRepair", "NearCacheOptions");
  private static final Pattern IMPORT = Pattern.compile("^import (?:static )?io\\.shardwise\\.core\\.([\\w.]+);", Pattern.MULTILINE);
  private static final Path INTERNAL = Path.of("src/main/java/io/shardwise/core/internal");

  @Test
  void everyPieceImportsOnlyPiecesBelowItAndTheOptionTypes() throws IOException {
    List<String> wrong = new ArrayList<>();
    int files = 0;
    for (String piece : ORDER) {
      try (Stream<Path> sources = Files.list(INTERNAL.resolve(piece))) {
        for (Path source : (Iterable<Path>) sources::iterator) {
          files++;
          Matcher m = IMPORT.matcher(Files.readString(source));
          while (m.find()) {
            String imported = m.group(1);
            if (!allowed(piece, imported)) {
              wrong.add(piece + "/" + source.getFileName() + " imports io.shardwise.core." + imported);
            }
          }
        }
      }
    }
    assertThat(files).as("sources read").isGreaterThan(20);
    assertThat(wrong).as("imports against the order " + ORDER).isEmpty();
  }

  private static boolean allowed(String piece, String imported) {
    if (!imported.startsWith("internal.")) {
      return OPTIONS.contains(imported); // io.shardwise.core itself: its option types only
    }
    String other = imported.substring("internal.".length(), imported.lastIndexOf('.'));
    return ORDER.indexOf(other) >= 0 && ORDER.indexOf(other) <= ORDER.indexOf(piece);
  }

  @Test
  void theCheckSeesAWrongImport() {
    assertThat(allowed("route", "internal.exec.Reads")).isFalse();
    assertThat(allowed("health", "internal.route.Topology")).isFalse();
    assertThat(allowed("exec", "RoutingClient")).isFalse();
    assertThat(allowed("exec", "config.ShardwiseConfig")).isFalse();
    assertThat(allowed("exec", "internal.health.Member")).isTrue();
    assertThat(allowed("health", "FailoverOptions")).isTrue();
  }
}
