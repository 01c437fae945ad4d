package io.shardwise.core.sources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Node;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServersFileTest {

  @TempDir Path dir;

  private static final List<Node> TWO = List.of(Node.of("127.0.0.1", 1), Node.of("127.0.0.1", 2));

  private Path path;

  /** The file holding {@code text}, read once: its next read returns the list, if any. */
  private ServersFile holding(String text) throws Exception {
    path = dir.resolve("servers.txt");
    Files.writeString(path, text);
    ServersFile file = ServersFile.of(path);
    assertThat(file.read()).as("first sight: may be half written").isEmpty();
    return file;
  }

  @Test
  void aChangedListIsReturnedOnceTwoReadsAgree() throws Exception {
    ServersFile file = holding("# the fleet\n127.0.0.1:1\n127.0.0.1:2   # rack b\n");
    assertThat(file.read()).contains(TWO);
    assertThat(file.read()).as("unchanged: returned again, the watcher skips it").contains(TWO);

    Files.writeString(path, "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3");
    assertThat(file.read()).isEmpty();
    assertThat(file.read().orElseThrow()).hasSize(3);
  }

  @Test
  void aHalfWrittenListThatParsesIsNotReturnedUntilTheWriterIsDone() throws Exception {
    ServersFile file = holding("127.0.0.1:1\n127.0.0.1:2\n");
    assertThat(file.read()).contains(TWO);

    Files.writeString(path, "127.0.0.1:1\n"); // a writer that has written one line of three
    assertThat(file.read()).isEmpty();
    Files.writeString(path, "127.0.0.1:1\n127.0.0.1:2\n127.0.0.1:3\n");
    assertThat(file.read()).as("still changing").isEmpty();
    assertThat(file.read().orElseThrow()).hasSize(3);
  }

  @Test
  void aListThatDoesNotParseIsRefusedWithTheParsersMessage() throws Exception {
    ServersFile file = holding("127.0.0.1:1\n127.0.0.1:");
    assertThatThrownBy(file::read)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "servers file " + path + ": server entry '127.0.0.1:': port must be a decimal"
                + " integer but was ''");
    Files.writeString(path, "127.0.0.1:1\n127.0.0.1:1\n");
    file.read();
    assertThatThrownBy(file::read).hasMessageContaining("must not name a server twice");
    Files.writeString(path, "# nothing left\n");
    file.read();
    assertThatThrownBy(file::read).hasMessageContaining("at least one server but was empty");
  }

  @Test
  void aVanishedFileIsAFailedReadAndAReplacedOneIsReadByItsPath() throws Exception {
    ServersFile file = holding("127.0.0.1:1,127.0.0.1:2");
    assertThat(file.read()).contains(TWO);

    Files.delete(path);
    assertThatThrownBy(file::read)
        .isInstanceOf(NoSuchFileException.class)
        .hasMessage("servers file " + path + " does not exist (deleted, or being replaced)");

    // An editor's save: write a new file beside it, rename it over the old one.
    Path temp = dir.resolve(".servers.txt.swp");
    Files.writeString(temp, "127.0.0.1:2\n127.0.0.1:3\n");
    Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE);
    assertThat(file.read()).isEmpty();
    assertThat(file.read())
        .isEqualTo(Optional.of(List.of(Node.of("127.0.0.1", 2), Node.of("127.0.0.1", 3))));
  }
}
