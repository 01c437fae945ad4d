package io.shardwise.core.sources;

import static io.shardwise.core.sources.WatcherThreads.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class ServerListWatcherTest {

  private static final Duration FAST = Duration.ofMillis(10);
  private static final Node A = Node.of("127.0.0.1", 1);
  private static final Node B = Node.of("127.0.0.1", 2);
  private static final Node C = Node.of("127.0.0.1", 3);

  @TempDir Path dir;

  @Test
  void aChangedFileIsAppliedAndTheThreadStopsOnClose() throws Exception {
    Path path = dir.resolve("servers.txt");
    Files.writeString(path, "127.0.0.1:1\n127.0.0.1:2\n");
    FakeTopology fleet = new FakeTopology(List.of(A, B));
    long before = WatcherThreads.count();
    ServerListWatcher watcher =
        ServerListWatcher.start(fleet.updater(), ServersFile.of(path), FAST);
    assertThat(WatcherThreads.count()).isEqualTo(before + 1);

    Files.writeString(path, "127.0.0.1:1\n127.0.0.1:2\n127.0.0.1:3\n");
    await("the third server", () -> fleet.current().contains(C));
    assertThat(fleet.calls()).containsExactly(List.of(A, B, C));

    Files.writeString(path, "127.0.0.1:1\nbroken\n");
    Thread.sleep(FAST.toMillis() * 10);
    assertThat(fleet.current()).as("a bad list leaves the old one").containsExactly(A, B, C);
    Files.delete(path);
    Thread.sleep(FAST.toMillis() * 10);
    assertThat(fleet.current()).as("a vanished file too").containsExactly(A, B, C);
    assertThat(watcher.updater().lastProblem().orElseThrow()).contains("does not exist");

    Files.writeString(path, "127.0.0.1:3\n");
    await("the file back", () -> fleet.current().equals(List.of(C)));
    assertThat(fleet.calls()).hasSize(2);

    watcher.close();
    assertThat(watcher.awaitClosed(Duration.ofSeconds(5))).isTrue();
    await("the thread gone", () -> WatcherThreads.count() == before); // ends just after termination
  }

  @Test
  void changesAreAppliedOneAtATime() throws Exception {
    Path path = dir.resolve("servers.txt");
    Files.writeString(path, "127.0.0.1:1,127.0.0.1:2");
    FakeTopology fleet = new FakeTopology(List.of(A, B));
    fleet.answer = FakeTopology.Answer.LATER;
    try (ServerListWatcher watcher =
        ServerListWatcher.start(fleet.updater(), ServersFile.of(path), FAST)) {
      Files.writeString(path, "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3");
      await("the first change asked for", () -> fleet.calls().size() == 1);
      Files.writeString(path, "127.0.0.1:3");
      Thread.sleep(FAST.toMillis() * 10);
      assertThat(fleet.calls()).as("the second waits for the first").hasSize(1);

      fleet.answer = FakeTopology.Answer.APPLY;
      fleet.completeLater();
      await("the second change", () -> fleet.current().equals(List.of(C)));
      assertThat(fleet.calls()).containsExactly(List.of(A, B, C), List.of(C));
      assertThat(watcher.toString()).contains("servers file");
    }
  }

  @Test
  void anEmptyDnsAnswerOrAFailedLookupKeepsTheFleet() throws Exception {
    InetAddress one = InetAddress.getByName("127.0.0.1");
    InetAddress two = InetAddress.getByName("127.0.0.2");
    AtomicReference<InetAddress[]> answer = new AtomicReference<>(new InetAddress[] {one});
    AtomicInteger lookups = new AtomicInteger();
    ServersDns dns =
        ServersDns.of(
            "memcached.cache.svc:11211",
            host -> {
              lookups.incrementAndGet();
              InetAddress[] a = answer.get();
              if (a == null) {
                throw new java.net.UnknownHostException(host);
              }
              return a;
            });
    Node first = Node.of("127.0.0.1", 11211);
    FakeTopology fleet = new FakeTopology(List.of(first));
    try (ServerListWatcher watcher = ServerListWatcher.start(fleet.updater(), dns, FAST)) {
      answer.set(new InetAddress[0]);
      int seen = lookups.get();
      await("lookups", () -> lookups.get() > seen + 3);
      assertThat(watcher.updater().lastProblem().orElseThrow()).contains("resolved to no address");
      answer.set(null);
      int failed = lookups.get();
      await("lookups", () -> lookups.get() > failed + 3);
      assertThat(watcher.updater().lastProblem().orElseThrow()).contains("cannot be resolved");
      assertThat(fleet.calls()).isEmpty();
      assertThat(watcher.updater().warnings()).isEqualTo(2);

      answer.set(new InetAddress[] {two, one});
      await("the second address", () -> fleet.current().size() == 2);
      assertThat(fleet.current()).containsExactly(first, Node.of("127.0.0.2", 11211));
      assertThat(watcher.updater().lastProblem()).isEmpty();
    }
  }

  @Test
  void noThreadIsLeftAfterManyWatchers() throws Exception {
    long before = WatcherThreads.count();
    FakeTopology fleet = new FakeTopology(List.of(A));
    for (int i = 0; i < 100; i++) {
      ServerListWatcher watcher =
          ServerListWatcher.start(
              fleet.updater(), ServersDns.of("127.0.0.1:1"), Duration.ofMillis(1));
      watcher.close();
      assertThat(watcher.awaitClosed(Duration.ofSeconds(5))).isTrue();
    }
    await("every watcher thread gone", () -> WatcherThreads.count() == before);
  }
}
