package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.core.ClientBuilder;
import io.shardwise.core.ShardwiseClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The single-key operations of the routing client against real servers, the same for every backend:
 * TTLs, {@code add}, counters, empty and maximum-size values, and concurrent use. A subclass per
 * backend registers the fleet and adds what differs.
 */
@Timeout(60)
abstract class CacheOperationsContract {

  /** The largest value the clients under test accept: 1 MiB. */
  static final int MAX_VALUE_BYTES = 1024 * 1024;

  private static final int SERVERS = 3;

  CountingBackend stringsBackend;
  CountingBackend bytesBackend;
  AsyncCacheClient<String> strings;
  AsyncCacheClient<byte[]> bytes;

  abstract CacheFleet fleet();

  /** A builder over {@code backend} whose clients accept values up to {@link #MAX_VALUE_BYTES}. */
  abstract ClientBuilder<Object> builder(CountingBackend backend);

  @BeforeEach
  void openClients() {
    fleet().reset();
    stringsBackend = new CountingBackend(fleet().newBackend());
    bytesBackend = new CountingBackend(fleet().newBackend());
    strings = ready(builder(stringsBackend).codec(Codecs.utf8()).build());
    bytes = ready(builder(bytesBackend).codec(Codecs.bytes()).build());
  }

  @AfterEach
  void closeClients() {
    if (strings != null) {
      strings.close();
    }
    if (bytes != null) {
      bytes.close();
    }
  }

  ClientBuilder<Object> fleetBuilder(CountingBackend backend) {
    return ShardwiseClient.builder()
        .backend(backend)
        .servers(fleet().serverList(SERVERS))
        .timeout(CacheFleet.CLIENT_TIMEOUT);
  }

  /** The bytes stored under {@code key} on the server the client routes it to; null if absent. */
  byte[] raw(AsyncCacheClient<?> client, String key) {
    return fleet().rawGetAll(fleet().indexOf(client.nodeFor(key)), List.of(key)).get(key);
  }

  String rawUtf8(String key) {
    byte[] value = raw(strings, key);
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }

  static byte[] randomBytes(int length) {
    byte[] b = new byte[length];
    new Random(length).nextBytes(b);
    return b;
  }

  @Test
  void valueWithAOneSecondTtlIsGoneAfterTwoAndAHalfSeconds() {
    CacheClient<String> cache = strings.sync();
    cache.set("ttl:short", "expires", Duration.ofSeconds(1));
    cache.set("ttl:none", "stays", Duration.ZERO);
    cache.set("ttl:long", "stays a minute", Duration.ofSeconds(60));
    assertThat(fleet().rawSecondsToExpiry(fleet().indexOf(strings.nodeFor("ttl:none")), "ttl:none"))
        .isEqualTo(-1);
    assertThat(fleet().rawSecondsToExpiry(fleet().indexOf(strings.nodeFor("ttl:long")), "ttl:long"))
        .isBetween(50L, 60L);

    CacheFleet.sleep(2_500);

    assertThat(cache.get("ttl:short")).isNull();
    assertThat(raw(strings, "ttl:short")).isNull();
    assertThat(cache.get("ttl:none")).isEqualTo("stays");
    assertThat(cache.get("ttl:long")).isEqualTo("stays a minute");
  }

  @Test
  void addOnAnExistingKeyReturnsFalseAndLeavesTheOldValue() {
    CacheClient<String> cache = strings.sync();
    cache.set("add:existing", "old", Duration.ZERO);

    assertThat(cache.add("add:existing", "new", Duration.ZERO)).isFalse();
    assertThat(cache.get("add:existing")).isEqualTo("old");
    assertThat(rawUtf8("add:existing")).isEqualTo("old");

    assertThat(cache.add("add:absent", "first", Duration.ZERO)).isTrue();
    assertThat(cache.add("add:absent", "second", Duration.ZERO)).isFalse();
    assertThat(cache.get("add:absent")).isEqualTo("first");
  }

  @Test
  void incrCreatesAnAbsentCounterWithItsInitialValueThenAddsAndDecrSubtracts() {
    CacheClient<String> cache = strings.sync();
    assertThat(cache.incr("counter:a", 5, 10, Duration.ZERO)).isEqualTo(10);
    assertThat(cache.incr("counter:a", 5, 10, Duration.ZERO)).isEqualTo(15);
    assertThat(cache.decr("counter:a", 3, 10, Duration.ZERO)).isEqualTo(12);
    assertThat(cache.incr("counter:a", 1_000_000, 10, Duration.ZERO)).isEqualTo(1_000_012);
    assertThat(rawUtf8("counter:a")).isEqualTo("1000012");
    assertThat(cache.get("counter:a")).isEqualTo("1000012");

    assertThat(cache.decr("counter:b", 4, 7, Duration.ZERO)).isEqualTo(7);
    assertThat(cache.decr("counter:b", 4, 7, Duration.ZERO)).isEqualTo(3);

    cache.set("counter:c", "41", Duration.ZERO);
    assertThat(cache.incr("counter:c", 1, 0, Duration.ZERO)).isEqualTo(42);
  }

  @Test
  void emptyValuesRoundTripAndAreNotMisses() {
    strings.sync().set("empty:string", "", Duration.ZERO);
    bytes.sync().set("empty:bytes", new byte[0], Duration.ZERO);

    assertThat(strings.sync().get("empty:string")).isEqualTo("");
    assertThat(bytes.sync().get("empty:bytes")).isEmpty();
    assertThat(raw(strings, "empty:string")).isEmpty();
    assertThat(raw(bytes, "empty:bytes")).isEmpty();
    MultiResult<byte[]> both = bytes.sync().getMulti(List.of("empty:bytes", "empty:absent"));
    assertThat(both.values()).containsOnlyKeys("empty:bytes");
    assertThat(both.misses()).containsExactly("empty:absent");
  }

  @Test
  void valueOfExactlyTheMaximumSizeRoundTrips() {
    byte[] largest = randomBytes(MAX_VALUE_BYTES);
    bytes.sync().set("size:max", largest, Duration.ZERO);

    assertThat(bytes.sync().get("size:max")).isEqualTo(largest);
    assertThat(raw(bytes, "size:max")).isEqualTo(largest);
  }

  @Test
  void valueOneByteOverTheMaximumIsRefusedBeforeAnyRequestIsSent() {
    byte[] tooLarge = randomBytes(MAX_VALUE_BYTES + 1);
    String message =
        "values are at most 1048576 bytes after encoding; got 1048577 for size:too-large";
    stringsBackend.clear();
    bytesBackend.clear();

    assertThatThrownBy(() -> bytes.set("size:too-large", tooLarge, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
    assertThatThrownBy(() -> bytes.add("size:too-large", tooLarge, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
    assertThatThrownBy(
            () ->
                bytes.setMulti(
                    Map.of("size:fine", new byte[10], "size:too-large", tooLarge), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);

    assertThat(bytesBackend.otherCalls()).as("requests that reached a connection").isEmpty();
    assertThat(raw(bytes, "size:too-large")).isNull();
    assertThat(raw(bytes, "size:fine")).isNull();
  }

  @Test
  void eightThreadsWritingAndReadingConcurrentlyNeverSeeAWrongValue() throws Exception {
    int threads = 8;
    int iterations = 300;
    int sharedKeys = 64;
    CacheClient<String> cache = strings.sync();
    // Versions are started in increasing order per thread: a value read may be at most this new.
    AtomicLongArray highestStarted = new AtomicLongArray(threads);
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    AtomicLong checkedReads = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  ThreadLocalRandom random = ThreadLocalRandom.current();
                  for (int version = 1; version <= iterations; version++) {
                    highestStarted.set(thread, version);
                    // A key only this thread writes: it must read back exactly what it wrote.
                    String own = "own:" + thread + ":" + random.nextInt(16);
                    String mine = VersionedValue.encode(own, thread, version);
                    cache.set(own, mine, Duration.ZERO);
                    String back = cache.get(own);
                    checkedReads.incrementAndGet();
                    if (!mine.equals(back)) {
                      wrong.add("own key " + own + ": wrote " + mine + " but read " + back);
                    }
                    // Keys every thread writes: a value read must be one some thread wrote for it.
                    String shared = "shared:" + random.nextInt(sharedKeys);
                    cache.set(
                        shared, VersionedValue.encode(shared, thread, version), Duration.ZERO);
                    String other = "shared:" + random.nextInt(sharedKeys);
                    check(other, cache.get(other), highestStarted, wrong);
                    checkedReads.incrementAndGet();
                    if (version % 25 == 0) {
                      List<String> some = new ArrayList<>();
                      for (int i = 0; i < 20; i++) {
                        some.add("shared:" + random.nextInt(sharedKeys));
                      }
                      MultiResult<String> many = cache.getMulti(some);
                      if (many.hasErrors()) {
                        wrong.add("getMulti errors: " + many.errors());
                      }
                      many.values().forEach((k, v) -> check(k, v, highestStarted, wrong));
                      checkedReads.addAndGet(many.values().size());
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(50, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(wrong).isEmpty();
    assertThat(checkedReads.get()).isGreaterThanOrEqualTo(threads * iterations * 2L);
  }

  private static void check(
      String key,
      String value,
      AtomicLongArray highestStarted,
      ConcurrentLinkedQueue<String> wrong) {
    if (value == null) {
      return; // not written yet
    }
    VersionedValue parsed = VersionedValue.parse(value);
    if (parsed == null
        || !parsed.key().equals(key)
        || parsed.thread() < 0
        || parsed.thread() >= highestStarted.length()
        || parsed.version() > highestStarted.get(parsed.thread())) {
      wrong.add("key " + key + " read " + value);
    }
  }

  /** A value naming its key, writer thread and version, with a checksum and a varying length. */
  record VersionedValue(String key, int thread, long version) {

    static String encode(String key, int thread, long version) {
      String body = key + "|" + thread + "|" + version;
      return body + "|" + checksum(body) + "|" + "x".repeat((int) (version % 97));
    }

    /** The parts of a well-formed value, or null if it is corrupted. */
    static VersionedValue parse(String value) {
      String[] parts = value.split("\\|", -1);
      if (parts.length != 5) {
        return null;
      }
      String body = parts[0] + "|" + parts[1] + "|" + parts[2];
      try {
        long version = Long.parseLong(parts[2]);
        if (!parts[3].equals(checksum(body))
            || !parts[4].equals("x".repeat((int) (version % 97)))) {
          return null;
        }
        return new VersionedValue(parts[0], Integer.parseInt(parts[1]), version);
      } catch (NumberFormatException e) {
        return null;
      }
    }

    private static String checksum(String body) {
      CRC32 crc = new CRC32();
      crc.update(body.getBytes(StandardCharsets.UTF_8));
      return Long.toHexString(crc.getValue());
    }
  }
}
