package io.shardwise.examples;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.MultiResult;
import io.shardwise.core.config.ShardwiseConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A plain Java program: reads {@code shardwise.properties} (the one on the classpath, or the file
 * given as the first argument), lets {@code -Dshardwise.*} system properties override it, builds
 * the client and uses it.
 *
 * <pre>
 * java -cp ... io.shardwise.examples.QuickStart [settings.properties]
 * </pre>
 */
public final class QuickStart {

  private QuickStart() {}

  public static void main(String[] args) throws IOException {
    Properties properties = new Properties();
    if (args.length > 0) {
      try (Reader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
        properties.load(in);
      }
    } else {
      try (InputStream in = QuickStart.class.getResourceAsStream("/shardwise.properties")) {
        properties.load(in);
      }
    }
    System.getProperties().stringPropertyNames().stream()
        .filter(name -> name.startsWith("shardwise."))
        .forEach(name -> properties.setProperty(name, System.getProperty(name)));

    // Every key is checked here, all at once; a bad one is a message naming it.
    ShardwiseConfig config = ShardwiseConfig.from(properties);
    System.out.println(config);

    try (AsyncCacheClient<Object> cache = config.build()) {
      CacheClient<Object> sync = cache.sync();

      sync.set("user:42", "Ada Lovelace", Duration.ofMinutes(10));
      System.out.println(
          "user:42 = " + sync.get("user:42") + "  (on " + cache.nodeFor("user:42") + ")");

      cache
          .set("user:43", Map.of("name", "Alan Turing", "born", 1912), Duration.ofMinutes(10))
          .join();
      System.out.println(
          "user:43 = " + cache.get("user:43").join() + "  (on " + cache.nodeFor("user:43") + ")");

      MultiResult<Object> many = sync.getMulti(List.of("user:42", "user:43", "user:44"));
      System.out.println(
          "getMulti: " + many.values().keySet() + " hit, " + many.misses() + " missed");

      long visits = sync.incr("visits", 1, 1, Duration.ZERO);
      System.out.println("visits = " + visits);

      System.out.println("servers: " + cache.nodeStates());
    }
  }
}
