package io.shardwise.memcached;

import static io.shardwise.memcached.Futures.await;
import static io.shardwise.memcached.Futures.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.MemcachedItem;
import io.shardwise.testing.MemcachedServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link NodeConnection} of the memcached backend must do against a real server, run
 * once per protocol by {@link NodeConnectionIT}.
 */
abstract class NodeConnectionContract {

  /** memcached's default {@code -I}: the item (header, key, value, CAS) must fit in 1 MiB. */
  static final int ITEM_SIZE_MAX = 1024 * 1024;

  MemcachedBackend backend;
  NodeConnection connection;

  abstract MemcachedProtocol protocol();

  abstract MemcachedServer server();

  @BeforeEach
  void connect() {
    server().flushAll();
    backend = MemcachedBackend.create(MemcachedOptions.builder().protocol(protocol()).build());
    connection = backend.connect(Node.of(server().host(), server().port()));
    // As the client's builder does: the first attempt (and its SASL probe), then the read of the
    // server's item size on a connection of its own, are then over.
    connection.ready().join();
    backend.limitsRead(connection).join();
  }

  @AfterEach
  void closeBackend() {
    backend.close();
  }

  static CachedValue utf8(String s, int flags) {
    return CachedValue.of(s.getBytes(StandardCharsets.UTF_8), flags);
  }

  static byte[] randomBytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  /** The largest value a default memcached 1.6 stores under a key of {@code keyBytes} bytes. */
  static int largestStorableValue(int keyBytes, int flags) {
    // item header 48 + key + NUL + value + CRLF + CAS 8 (+ 4 for non-zero flags) <= item_size_max
    return ITEM_SIZE_MAX - 48 - 8 - 2 - (keyBytes + 1) - (flags != 0 ? 4 : 0);
  }

  // ---- get / set -----------------------------------------------------------------------------

  @Test
  void getReturnsWhatSetStored() {
    CachedValue value = utf8("hello, memcached", 0);
    await(connection.set("greeting", value, Duration.ZERO));

    assertThat(await(connection.get("greeting"))).isEqualTo(value);
    MemcachedItem raw = server().get("greeting");
    assertThat(raw.valueUtf8()).isEqualTo("hello, memcached");
  }

  @Test
  void missIsNullNotAnError() {
    assertThat(await(connection.get("never-written"))).isNull();
  }

  @Test
  void setOverwrites() {
    await(connection.set("k", utf8("one", 1), Duration.ZERO));
    await(connection.set("k", utf8("two", 2), Duration.ZERO));

    assertThat(await(connection.get("k"))).isEqualTo(utf8("two", 2));
  }

  @Test
  void flagsArePreservedExactly() {
    List<Integer> flags =
        new ArrayList<>(List.of(0, 1, 2, 3, 0x0100, 0x0803, 0xffff, 0x10000, 0x7fffffff));
    if (protocol() == MemcachedProtocol.BINARY) {
      flags.addAll(List.of(0x80000000, 0xfffffffe, -1));
    }
    for (int f : flags) {
      await(connection.set("flags-" + f, CachedValue.of(new byte[] {7}, f), Duration.ZERO));
    }
    for (int f : flags) {
      assertThat(await(connection.get("flags-" + f)).flags()).as("flags %08x", f).isEqualTo(f);
      assertThat(server().get("flags-" + f).flags()).as("raw flags %08x", f).isEqualTo(f);
    }
  }

  @Test
  void zeroLengthValueIsStoredAndIsNotAMiss() {
    await(connection.set("empty", CachedValue.of(new byte[0], 0), Duration.ZERO));

    CachedValue read = await(connection.get("empty"));
    assertThat(read).isNotNull();
    assertThat(read.length()).isZero();
  }

  @Test
  void binaryValuesRoundTripByteForByte() {
    byte[] bytes = new byte[256];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    CachedValue value = CachedValue.of(bytes, 0x0800);
    await(connection.set("all-bytes", value, Duration.ZERO));

    assertThat(await(connection.get("all-bytes"))).isEqualTo(value);
  }

  @Test
  void utf8KeysAndLongestKeysWork() {
    String utf8Key = "caf\u00e9:\u65e5\u672c:\ud83d\ude00";
    String longKey = "k".repeat(250);
    await(connection.set(utf8Key, utf8("u", 0), Duration.ZERO));
    await(connection.set(longKey, utf8("l", 0), Duration.ZERO));

    assertThat(await(connection.get(utf8Key))).isEqualTo(utf8("u", 0));
    assertThat(await(connection.get(longKey))).isEqualTo(utf8("l", 0));
  }

  @Test
  void thousandsOfPipelinedRequestsFromManyThreadsEachGetTheirOwnReply() throws Exception {
    // What is checked is that replies are matched to their requests, not how fast 8,000
    // pipelined requests are answered: with the default 1 s timeout the last of them could
    // time out on a loaded 2-core machine, so this test allows 5 s.
    backend.close();
    backend =
        MemcachedBackend.create(
            MemcachedOptions.builder()
                .protocol(protocol())
                .operationTimeout(Duration.ofSeconds(5))
                .build());
    NodeConnection connection = backend.connect(Node.of(server().host(), server().port()));
    int threads = 8;
    int perThread = 1_000;
    List<Thread> workers = new ArrayList<>();
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < threads; t++) {
      int thread = t;
      workers.add(
          new Thread(
              () -> {
                try {
                  List<CompletableFuture<Void>> sets = new ArrayList<>();
                  for (int i = 0; i < perThread; i++) {
                    sets.add(
                        connection.set("p:" + thread + ":" + i, utf8("v" + i, i), Duration.ZERO));
                  }
                  sets.forEach(Futures::await);
                  List<CompletableFuture<CachedValue>> gets = new ArrayList<>();
                  for (int i = 0; i < perThread; i++) {
                    gets.add(connection.get("p:" + thread + ":" + i));
                  }
                  for (int i = 0; i < perThread; i++) {
                    assertThat(await(gets.get(i))).isEqualTo(utf8("v" + i, i));
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              }));
    }
    workers.forEach(Thread::start);
    for (Thread worker : workers) {
      worker.join();
    }

    assertThat(errors).isEmpty();
  }

  // ---- multi-key -----------------------------------------------------------------------------

  @Test
  void getMultiOf500KeysReturnsHitsAndOmitsMisses() {
    List<String> keys = new ArrayList<>();
    Map<String, CachedValue> stored = new HashMap<>();
    for (int i = 0; i < 500; i++) {
      // every tenth key is as long as memcached allows, so the request line is long too
      String key = i % 10 == 0 ? String.format("%03d-", i) + "x".repeat(246) : "multi:" + i;
      keys.add(key);
      if (i % 2 == 0) {
        CachedValue value = CachedValue.of(randomBytes(i, i), i);
        stored.put(key, value);
        await(connection.set(key, value, Duration.ZERO));
      }
    }

    Map<String, CachedValue> found = await(connection.getMulti(keys)).values();

    assertThat(found).hasSize(250).isEqualTo(stored);
  }

  @Test
  void getMultiOfNoKeysIsEmpty() {
    assertThat(await(connection.getMulti(List.of())).values()).isEmpty();
  }

  @Test
  void setMultiStoresEveryEntry() {
    Map<String, CachedValue> values = new LinkedHashMap<>();
    for (int i = 0; i < 200; i++) {
      values.put("sm:" + i, utf8("value " + i, i));
    }

    assertThat(await(connection.setMulti(values, Duration.ZERO)).failures()).isEmpty();

    assertThat(await(connection.getMulti(new ArrayList<>(values.keySet()))).values()).isEqualTo(values);
  }

  @Test
  void setMultiReportsTheEntryTheServerRefused() {
    Map<String, CachedValue> values = new LinkedHashMap<>();
    values.put("ok-1", utf8("a", 0));
    values.put("too-big", CachedValue.of(randomBytes(ITEM_SIZE_MAX, 1), 0));
    values.put("ok-2", utf8("b", 0));

    Map<String, Throwable> failures = await(connection.setMulti(values, Duration.ZERO)).failures();

    assertThat(failures).containsOnlyKeys("too-big");
    assertThat(failures.get("too-big")).isInstanceOf(MemcachedServerErrorException.class);
    assertThat(await(connection.get("ok-1"))).isEqualTo(utf8("a", 0));
    assertThat(await(connection.get("ok-2"))).isEqualTo(utf8("b", 0));
  }

  @Test
  void deleteMultiSaysWhichKeysExisted() {
    await(connection.set("d1", utf8("1", 0), Duration.ZERO));
    await(connection.set("d3", utf8("3", 0), Duration.ZERO));

    Map<String, Boolean> existed = await(connection.deleteMulti(List.of("d1", "d2", "d3"))).values();

    assertThat(existed)
        .containsExactlyInAnyOrderEntriesOf(Map.of("d1", true, "d2", false, "d3", true));
    assertThat(await(connection.getMulti(List.of("d1", "d2", "d3"))).values()).isEmpty();
  }

  // ---- remaining TTL ---------------------------------------------------------------------------

  @Test
  void remainingTtlTellsTheTimeAKeyHasLeftOnTheTextProtocol() {
    await(connection.set("ttl-100", utf8("x", 0), Duration.ofSeconds(100)));
    await(connection.set("ttl-none", utf8("x", 0), Duration.ZERO));
    Duration left = await(connection.remainingTtl("ttl-100"));
    if (protocol() == MemcachedProtocol.BINARY) {
      assertThat(left).as("the binary protocol has no meta commands").isNull();
      return;
    }
    assertThat(left).isBetween(Duration.ofSeconds(90), Duration.ofSeconds(100));
    assertThat(await(connection.remainingTtl("ttl-none"))).isEqualTo(Duration.ZERO);
    assertThat(await(connection.remainingTtl("absent"))).isNull();
    // the stream stays in step: the next requests get their own replies
    assertThat(await(connection.get("ttl-none"))).isEqualTo(utf8("x", 0));
  }

  // ---- server run ----------------------------------------------------------------------------

  @Test
  void theServerRunCountsKeysAndChangesWithAFlush() {
    io.shardwise.spi.ServerRun before = await(connection.serverRun());
    assertThat(before.id()).startsWith("pid ");
    // Two keys written count two more items, unless the server reaped expired items of the other
    // tests (its LRU crawler runs on its own) between the two reads: a few tries, each with new keys.
    io.shardwise.spi.ServerRun written = null;
    List<Long> counted = new ArrayList<>();
    for (int attempt = 0; attempt < 5; attempt++) {
      io.shardwise.spi.ServerRun start = await(connection.serverRun());
      await(connection.set("run-a" + attempt, utf8("x", 0), Duration.ZERO));
      await(connection.set("run-b" + attempt, utf8("x", 0), Duration.ZERO));
      written = await(connection.serverRun());
      assertThat(written.id()).as("writes are the same run").isEqualTo(before.id());
      counted.add(written.items() - start.items());
      if (written.items() == start.items() + 2) {
        break;
      }
    }
    assertThat(counted).as("items counted for two keys written, per try").contains(2L);

    await(connection.flushAll());

    io.shardwise.spi.ServerRun flushed = await(connection.serverRun());
    assertThat(flushed.id()).isNotEqualTo(before.id());
    // memcached's curr_items still counts flushed items until they are reaped (lazily, as they are
    // read or their LRU is crawled): a restart empties it, a flush_all only later.
    assertThat(flushed.items()).isLessThanOrEqualTo(written.items());
  }

  // ---- add / delete / touch ------------------------------------------------------------------

  @Test
  void addStoresOnlyWhenAbsent() {
    assertThat(await(connection.add("a", utf8("first", 0), Duration.ZERO))).isTrue();
    assertThat(await(connection.add("a", utf8("second", 0), Duration.ZERO))).isFalse();

    assertThat(await(connection.get("a"))).isEqualTo(utf8("first", 0));
  }

  @Test
  void deleteSaysWhetherTheKeyExisted() {
    await(connection.set("del", utf8("x", 0), Duration.ZERO));

    assertThat(await(connection.delete("del"))).isTrue();
    assertThat(await(connection.delete("del"))).isFalse();
    assertThat(await(connection.get("del"))).isNull();
  }

  @Test
  void touchSaysWhetherTheKeyExisted() {
    await(connection.set("t", utf8("x", 0), Duration.ZERO));

    assertThat(await(connection.touch("t", Duration.ofHours(1)))).isTrue();
    assertThat(await(connection.touch("absent", Duration.ofHours(1)))).isFalse();
    assertThat(MetaCommands.secondsToExpiry(server().host(), server().port(), "t"))
        .isBetween(3590L, 3600L);
  }

  // ---- counters ------------------------------------------------------------------------------

  @Test
  void incrCreatesTheCounterWithItsInitialValueThenAdds() {
    assertThat(await(connection.incr("c", 5, 10, Duration.ZERO))).isEqualTo(10L);
    assertThat(await(connection.incr("c", 5, 10, Duration.ZERO))).isEqualTo(15L);
    assertThat(await(connection.incr("c", -3, 10, Duration.ZERO))).isEqualTo(12L);
    assertThat(await(connection.incr("c", 0, 10, Duration.ZERO))).isEqualTo(12L);

    assertThat(server().get("c").valueUtf8().trim()).isEqualTo("12");
  }

  @Test
  void incrIfPresentAddsToACounterThatExistsAndCreatesNothing() {
    assertThat(await(connection.incrIfPresent("p", 5))).isNull();
    assertThat(await(connection.incrIfPresent("p", -5))).isNull();
    assertThat(server().get("p")).as("nothing created").isNull();
    await(connection.incr("p", 1, 10, Duration.ZERO));
    assertThat(await(connection.incrIfPresent("p", 5))).isEqualTo(15L);
    assertThat(await(connection.incrIfPresent("p", -3))).isEqualTo(12L);
    assertThat(await(connection.incrIfPresent("p", -100))).as("decr stops at zero").isZero();
  }

  @Test
  void decrCreatesTheCounterWithItsInitialValue() {
    assertThat(await(connection.incr("d", -5, 7, Duration.ZERO))).isEqualTo(7L);
    assertThat(await(connection.incr("d", -5, 7, Duration.ZERO))).isEqualTo(2L);
  }

  @Test
  void decrStopsAtZero() {
    await(connection.incr("z", 1, 3, Duration.ZERO));

    assertThat(await(connection.incr("z", -100, 0, Duration.ZERO))).isZero();
    assertThat(await(connection.incr("z", -1, 0, Duration.ZERO))).isZero();
    assertThat(await(connection.incr("z", 4, 0, Duration.ZERO))).isEqualTo(4L);
  }

  @Test
  void incrWorksOnACounterWrittenAsDigits() {
    await(connection.set("digits", utf8("41", 0), Duration.ZERO));

    assertThat(await(connection.incr("digits", 1, 0, Duration.ZERO))).isEqualTo(42L);
  }

  @Test
  void incrOfANonNumericValueIsAServerErrorAndTheConnectionStaysUp() {
    await(connection.set("word", utf8("abc", 0), Duration.ZERO));

    Throwable failure = failure(connection.incr("word", 1, 0, Duration.ZERO));

    assertThat(failure).isInstanceOf(MemcachedServerErrorException.class);
    assertThat(backend.isNodeFailure(failure)).isFalse();
    assertThat(failure.getMessage()).containsIgnoringCase("non-numeric");
    long start = System.nanoTime();
    assertThat(await(connection.get("word"))).isEqualTo(utf8("abc", 0));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(200));
  }

  /** 2^63 as the long that holds its bits. */
  static final long TWO_TO_THE_63 = Long.MIN_VALUE;

  private long connectionsOpened() {
    return Long.parseLong(server().stats().get("total_connections"));
  }

  @Test
  void incrAcrossTwoToThe63ReturnsTheUnsignedValueAndKeepsTheConnection() {
    long opened = connectionsOpened();
    assertThat(await(connection.incr("u", 1, Long.MAX_VALUE - 1, Duration.ZERO)))
        .isEqualTo(Long.MAX_VALUE - 1);
    assertThat(await(connection.incr("u", 1, 0, Duration.ZERO))).isEqualTo(Long.MAX_VALUE);

    long crossed = await(connection.incr("u", 1, 0, Duration.ZERO));

    assertThat(crossed).isEqualTo(TWO_TO_THE_63);
    assertThat(Long.toUnsignedString(crossed)).isEqualTo("9223372036854775808");
    assertThat(server().get("u").valueUtf8().trim()).isEqualTo("9223372036854775808");
    assertThat(Long.toUnsignedString(await(connection.incr("u", 1000, 0, Duration.ZERO))))
        .isEqualTo("9223372036854776808");
    assertThat(Long.toUnsignedString(await(connection.incr("u", -2000, 0, Duration.ZERO))))
        .isEqualTo("9223372036854774808");
    assertThat(await(connection.incr("u", -1, 0, Duration.ZERO))).isEqualTo(Long.MAX_VALUE - 1000);
    // +2: the raw get and the raw stats connections; the connection under test was not reopened
    assertThat(connectionsOpened()).isEqualTo(opened + 2);
  }

  @Test
  void incrWrapsAtTwoToThe64() {
    long max = -1L; // 2^64 - 1
    assertThat(await(connection.incr("w", 1, max - 1, Duration.ZERO))).isEqualTo(max - 1);
    assertThat(server().get("w").valueUtf8().trim()).isEqualTo("18446744073709551614");
    assertThat(await(connection.incr("w", 1, 0, Duration.ZERO))).isEqualTo(max);
    assertThat(Long.toUnsignedString(max)).isEqualTo("18446744073709551615");

    assertThat(await(connection.incr("w", 1, 0, Duration.ZERO))).isZero();
    assertThat(await(connection.incr("w", Long.MAX_VALUE, 0, Duration.ZERO)))
        .isEqualTo(Long.MAX_VALUE);
    assertThat(await(connection.incr("w", Long.MAX_VALUE, 0, Duration.ZERO))).isEqualTo(max - 1);
    assertThat(await(connection.incr("w", 5, 0, Duration.ZERO))).isEqualTo(3L);
  }

  @Test
  void decrFromAboveTwoToThe63StopsAtZero() {
    long start = TWO_TO_THE_63 + 5;
    assertThat(await(connection.incr("f", -1, start, Duration.ZERO))).isEqualTo(start);
    assertThat(await(connection.incr("f", -10, 0, Duration.ZERO))).isEqualTo(Long.MAX_VALUE - 4);
    assertThat(await(connection.incr("f", -Long.MAX_VALUE, 0, Duration.ZERO))).isZero();
    assertThat(server().get("f").valueUtf8().trim()).isEqualTo("0");
  }

  @Test
  void anInitialValueIsReadAsUnsigned() {
    assertThat(await(connection.incr("i1", 1, -1L, Duration.ZERO))).isEqualTo(-1L);
    assertThat(server().get("i1").valueUtf8()).isEqualTo("18446744073709551615");
    assertThat(await(connection.incr("i2", -1, TWO_TO_THE_63, Duration.ZERO)))
        .isEqualTo(TWO_TO_THE_63);
    assertThat(server().get("i2").valueUtf8()).isEqualTo("9223372036854775808");
    assertThat(await(connection.incr("i2", -1, 0, Duration.ZERO))).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void requestsInFlightSurviveACounterCrossingTwoToThe63() {
    Map<String, CachedValue> values = new LinkedHashMap<>();
    for (int i = 0; i < 200; i++) {
      values.put("n" + i, utf8("value " + i, 0));
    }
    assertThat(await(connection.setMulti(values, Duration.ZERO)).failures()).isEmpty();
    await(connection.incr("big", 1, Long.MAX_VALUE - 10, Duration.ZERO));
    long opened = connectionsOpened();

    List<CompletableFuture<CachedValue>> reads = new ArrayList<>();
    List<CompletableFuture<Long>> increments = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      reads.add(connection.get("n" + i));
      if (i % 10 == 0) {
        increments.add(connection.incr("big", 1, 0, Duration.ZERO));
      }
    }

    for (int i = 0; i < 200; i++) {
      assertThat(await(reads.get(i))).isEqualTo(values.get("n" + i));
    }
    List<Long> counted = new ArrayList<>();
    for (CompletableFuture<Long> increment : increments) {
      counted.add(await(increment));
    }
    assertThat(counted).hasSize(20);
    for (int i = 0; i < 20; i++) {
      assertThat(counted.get(i)).isEqualTo(Long.MAX_VALUE - 9 + i);
    }
    assertThat(counted).contains(TWO_TO_THE_63, TWO_TO_THE_63 + 9);
    // +1: the raw stats connection; the connection under test was not reopened
    assertThat(connectionsOpened()).isEqualTo(opened + 1);
  }

  // ---- ping / flush --------------------------------------------------------------------------

  @Test
  void pingMeasuresARoundTrip() {
    Duration rtt = await(connection.ping());

    assertThat(rtt).isPositive().isLessThan(MemcachedOptions.DEFAULT_OPERATION_TIMEOUT);
  }

  @Test
  void flushAllRemovesEveryKey() {
    await(connection.set("f1", utf8("1", 0), Duration.ZERO));
    await(connection.set("f2", utf8("2", 0), Duration.ZERO));

    await(connection.flushAll());

    assertThat(await(connection.getMulti(List.of("f1", "f2"))).values()).isEmpty();
  }

  // ---- TTL -----------------------------------------------------------------------------------

  @Test
  void shortTtlsExpireAndLongTtlsAreSentAsAbsoluteTimes() throws InterruptedException {
    Duration second = Duration.ofSeconds(1);
    await(connection.set("ttl-set", utf8("x", 0), second));
    assertThat(await(connection.add("ttl-add", utf8("x", 0), second))).isTrue();
    assertThat(await(connection.incr("ttl-incr", 1, 1, second))).isEqualTo(1L);
    await(connection.set("ttl-touch", utf8("x", 0), Duration.ZERO));
    assertThat(await(connection.touch("ttl-touch", second))).isTrue();
    await(connection.set("ttl-none", utf8("x", 0), Duration.ZERO));
    await(connection.set("ttl-30d", utf8("x", 0), Duration.ofDays(30)));
    await(connection.set("ttl-31d", utf8("x", 0), Duration.ofDays(31)));
    List<String> shortLived = List.of("ttl-set", "ttl-add", "ttl-incr", "ttl-touch");
    assertThat(await(connection.getMulti(shortLived)).values()).hasSize(4);

    Thread.sleep(2_100);

    assertThat(await(connection.getMulti(shortLived)).values()).isEmpty();
    assertThat(await(connection.getMulti(List.of("ttl-none", "ttl-30d", "ttl-31d"))).values()).hasSize(3);
    String host = server().host();
    int port = server().port();
    assertThat(MetaCommands.secondsToExpiry(host, port, "ttl-none")).isEqualTo(-1L);
    long thirtyDays = Duration.ofDays(30).toSeconds();
    long thirtyOneDays = Duration.ofDays(31).toSeconds();
    assertThat(MetaCommands.secondsToExpiry(host, port, "ttl-30d"))
        .isBetween(thirtyDays - 5, thirtyDays);
    assertThat(MetaCommands.secondsToExpiry(host, port, "ttl-31d"))
        .isBetween(thirtyOneDays - 5, thirtyOneDays);
  }

  // ---- value size ----------------------------------------------------------------------------

  @Test
  void aValueNearOneMebibyteRoundTrips() {
    CachedValue value = CachedValue.of(randomBytes(1_000_000, 42), 0x0800);
    await(connection.set("big", value, Duration.ZERO));

    assertThat(await(connection.get("big"))).isEqualTo(value);
  }

  @Test
  void largestValueADefaultServerStoresDependsOnKeyLengthAndFlags() {
    for (int keyBytes : new int[] {1, 40, 250}) {
      for (int flags : new int[] {0, 0x0800}) {
        String key = "L".repeat(keyBytes);
        int largest = largestStorableValue(keyBytes, flags);
        CachedValue fits = CachedValue.of(randomBytes(largest, keyBytes), flags);
        CachedValue tooBig = CachedValue.of(randomBytes(largest + 1, keyBytes), flags);

        await(connection.set(key, fits, Duration.ZERO));
        assertThat(await(connection.get(key)))
            .as("key %d bytes, flags %d", keyBytes, flags)
            .isEqualTo(fits);
        assertThat(failure(connection.set(key, tooBig, Duration.ZERO)))
            .as("key %d bytes, flags %d", keyBytes, flags)
            .isInstanceOf(MemcachedServerErrorException.class);
      }
    }
    assertThat(largestStorableValue(1, 0x0800)).isEqualTo(1_048_512);
  }

  @Test
  void tooLargeValueFailsWithAServerErrorAndNothingElseIsDisturbed() {
    await(connection.set("neighbour", utf8("still here", 0), Duration.ZERO));
    // A failed set of a too-large value also removes the key's old value (memcached does this).
    await(connection.set("huge", utf8("old", 0), Duration.ZERO));
    List<CompletableFuture<CachedValue>> before = new ArrayList<>();
    List<CompletableFuture<CachedValue>> after = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      before.add(connection.get("neighbour"));
    }
    long start = System.nanoTime();
    CompletableFuture<Void> huge =
        connection.set("huge", CachedValue.of(randomBytes(ITEM_SIZE_MAX, 7), 0), Duration.ZERO);
    for (int i = 0; i < 20; i++) {
      after.add(connection.get("neighbour"));
    }

    Throwable failure = failure(huge);

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(MemcachedOptions.DEFAULT_OPERATION_TIMEOUT);
    assertThat(failure)
        .isInstanceOf(MemcachedServerErrorException.class)
        .hasMessageContaining("set 'huge'")
        .hasMessageContainingAll(
            protocol() == MemcachedProtocol.TEXT ? "object too large" : "Too large");
    assertThat(backend.isNodeFailure(failure)).isFalse();
    for (CompletableFuture<CachedValue> get : before) {
      assertThat(await(get)).isEqualTo(utf8("still here", 0));
    }
    for (CompletableFuture<CachedValue> get : after) {
      assertThat(await(get)).isEqualTo(utf8("still here", 0));
    }
    assertThat(await(connection.get("huge"))).isNull();
  }

  // ---- argument checks -----------------------------------------------------------------------

  @Test
  void negativeTtlIsRejected() {
    assertThat(failure(connection.set("k", utf8("x", 0), Duration.ofSeconds(-1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl must be >= 0");
  }
}
