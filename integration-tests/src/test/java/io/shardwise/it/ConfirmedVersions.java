package io.shardwise.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * Which version of each key a writer process has confirmed, and when, in a file both processes of
 * {@link NearCacheStalenessIT} map into memory: the writer records each confirmed write here, the
 * reader looks up a key's latest confirmed version before its read and, if the read returned an
 * older one, when the next version after it was confirmed.
 *
 * <p>Why shared memory and not a message per write. Whether a read is stale is a question of order
 * ("was a newer version confirmed before the read began?"), and the shared memory answers it
 * without a clock: the writer stores a version's time, then publishes the version with a release
 * store; the reader loads the latest version with an acquire load before it sends its read. A pipe
 * or socket would tell the reader of a confirmation a scheduling delay later, and reads begun in
 * that delay, the very ones that measure the invalidation delay, would go uncounted. (The Java
 * memory model speaks of one process; the release store and acquire load compile to the ordered
 * stores and loads of the processor, x86's or ARM's, which order a shared page for every process
 * mapping it.)
 *
 * <p>Why the wall clock for the durations. How long after the confirmation the read began compares
 * a time taken in the writer with one taken in the reader. {@link System#nanoTime()} is specified
 * to be comparable only within one JVM (on Linux it happens to be the machine's CLOCK_MONOTONIC,
 * but nothing promises it); {@link Instant#now()} reads the machine's one real-time clock (Linux
 * CLOCK_REALTIME, to the microsecond here), the same for both processes. Its only hazard is a
 * step (an NTP correction) during the run, which the reader watches for ({@link #wallMicros} against
 * its own {@code nanoTime}); the order, which decides whether a read counts, does not depend on it.
 *
 * <p>Layout: one long per key, its latest confirmed version; then {@value #RING} longs per key, the
 * confirmation time (µs since the epoch) of version {@code v} at slot {@code v % RING}.
 */
final class ConfirmedVersions implements AutoCloseable {

  /** Confirmation times kept per key: the last {@value} versions. */
  static final int RING = 256;

  private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

  private final FileChannel channel;
  private final MappedByteBuffer memory;
  private final int keys;

  private ConfirmedVersions(FileChannel channel, MappedByteBuffer memory, int keys) {
    this.channel = channel;
    this.memory = memory;
    this.keys = keys;
  }

  /** Maps {@code file} (created, zeroed, if absent) for {@code keys} keys. */
  static ConfirmedVersions map(Path file, int keys) {
    try {
      FileChannel channel =
          FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      long size = 8L * keys * (1 + RING);
      return new ConfirmedVersions(channel, channel.map(FileChannel.MapMode.READ_WRITE, 0, size), keys);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Now, by the machine's real-time clock, in microseconds since the epoch. */
  static long wallMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  int keys() {
    return keys;
  }

  /** The writer: version {@code version} of key {@code key} was confirmed written at {@code atMicros}. */
  void confirmed(int key, long version, long atMicros) {
    LONGS.set(memory, timeOffset(key, version), atMicros);
    LONGS.setRelease(memory, 8 * key, version);
  }

  /** The latest version of {@code key} confirmed so far (0: none). */
  long latest(int key) {
    return (long) LONGS.getAcquire(memory, 8 * key);
  }

  /**
   * When version {@code version} of {@code key} was confirmed, in µs since the epoch; valid for a
   * version at most {@link #latest} as read before, and above {@code latest - RING}.
   */
  long confirmedAtMicros(int key, long version) {
    return (long) LONGS.get(memory, timeOffset(key, version));
  }

  private int timeOffset(int key, long version) {
    return 8 * (keys + key * RING + (int) (version % RING));
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
