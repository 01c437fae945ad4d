package io.shardwise.benchmarks.e2e;

import java.util.SplittableRandom;

/**
 * The fixed keys and values both sides of a pair read and write: {@code e2e:key:00000} ... and a
 * seeded random value of the same size for each key. A set always writes a key's own value, so
 * every get must return exactly that value.
 */
final class Dataset {

  private final String[] keys;
  private final byte[][] values;

  Dataset(int size, int valueBytes, long seed) {
    if (size < 100) {
      throw new IllegalArgumentException("the data set needs at least 100 keys but was " + size);
    }
    if (valueBytes < 1) {
      throw new IllegalArgumentException("values must be >= 1 byte but were " + valueBytes);
    }
    SplittableRandom random = new SplittableRandom(seed);
    keys = new String[size];
    values = new byte[size][];
    for (int i = 0; i < size; i++) {
      keys[i] = String.format("e2e:key:%05d", i);
      byte[] value = new byte[valueBytes];
      random.nextBytes(value);
      values[i] = value;
    }
  }

  int size() {
    return keys.length;
  }

  int valueBytes() {
    return values[0].length;
  }

  String key(int index) {
    return keys[index];
  }

  /** The value of key {@code index}; shared, never modified. */
  byte[] value(int index) {
    return values[index];
  }
}
