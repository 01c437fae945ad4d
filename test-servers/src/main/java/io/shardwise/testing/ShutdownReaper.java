package io.shardwise.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Closes every started server or proxy that is still open when the JVM shuts down. */
final class ShutdownReaper {
  private static final Set<AutoCloseable> OPEN = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(ShutdownReaper::closeAll, "shardwise-test-servers-reaper"));
  }

  private ShutdownReaper() {}

  static void register(AutoCloseable resource) {
    OPEN.add(resource);
  }

  static void unregister(AutoCloseable resource) {
    OPEN.remove(resource);
  }

  static int openCount() {
    return OPEN.size();
  }

  private static void closeAll() {
    List<AutoCloseable> resources = new ArrayList<>(OPEN);
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception | LinkageError e) {
        System.err.println("shardwise-test-servers: could not close " + resource + ": " + e);
      }
    }
  }
}
