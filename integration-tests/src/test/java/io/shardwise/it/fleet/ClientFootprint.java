package io.shardwise.it.fleet;

import java.io.File;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Threads and file descriptors of this JVM, to see what a client adds and leaves behind. */
final class ClientFootprint {

  private final Set<Thread> threads;
  private final int fds;

  private ClientFootprint(Set<Thread> threads, int fds) {
    this.threads = threads;
    this.fds = fds;
  }

  static ClientFootprint now() {
    return new ClientFootprint(liveThreads(), openFds());
  }

  /**
   * The live threads started since this snapshot, but the JVM's shared common pool (whose workers
   * belong to no client and end when idle for a minute).
   */
  List<Thread> newThreads() {
    Set<Thread> live = liveThreads();
    live.removeAll(threads);
    return live.stream()
        .filter(Thread::isAlive)
        .filter(t -> !t.getName().startsWith("ForkJoinPool.commonPool"))
        .collect(Collectors.toList());
  }

  /** Open file descriptors now minus at this snapshot. */
  int newFds() {
    return openFds() - fds;
  }

  static String names(List<Thread> threads) {
    return threads.stream().map(Thread::getName).sorted().collect(Collectors.joining(", "));
  }

  private static Set<Thread> liveThreads() {
    Set<Thread> live = new HashSet<>(Thread.getAllStackTraces().keySet());
    live.removeIf(t -> !t.isAlive());
    return live;
  }

  /** Entries of /proc/self/fd (Linux), or -1 where there is none. */
  static int openFds() {
    String[] entries = new File("/proc/self/fd").list();
    return entries == null ? -1 : entries.length;
  }
}
