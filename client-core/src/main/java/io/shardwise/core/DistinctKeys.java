package io.shardwise.core;

import java.util.AbstractSet;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The distinct keys of a multi-key call, in the order given, first occurrence kept: a copy of the
 * caller's keys (a change to their collection while the call runs changes nothing) in one array,
 * and an open-addressing table of positions that finds repeats and answers {@link #contains}.
 * About 14 bytes per key where a {@link java.util.LinkedHashSet} takes 50 (an entry object of 40
 * bytes and its table slot). Read-only.
 */
final class DistinctKeys extends AbstractSet<String> {

  /** Most keys: the table, twice as large, must still fit an array. */
  private static final int MAX_KEYS = 1 << 29;

  private final String[] keys;
  private final int size;
  /** Position + 1 of a key in {@link #keys}, 0 for an empty slot; linear probing. */
  private final int[] table;

  private DistinctKeys(String[] keys, int size, int[] table) {
    this.keys = keys;
    this.size = size;
    this.table = table;
  }

  /**
   * The distinct keys of {@code keys}, which this takes (and reorders: the repeats are dropped in
   * place); none may be null.
   *
   * @throws IllegalArgumentException if there are more than 2^29 keys
   */
  static DistinctKeys of(String[] keys) {
    if (keys.length > MAX_KEYS) {
      throw new IllegalArgumentException("at most " + MAX_KEYS + " keys, not " + keys.length);
    }
    int[] table = new int[Integer.highestOneBit(Math.max(2, 2 * keys.length) - 1) << 1];
    int mask = table.length - 1;
    int size = 0;
    next:
    for (String key : keys) {
      int s = slot(key.hashCode(), mask);
      for (; table[s] != 0; s = (s + 1) & mask) {
        if (key.equals(keys[table[s] - 1])) {
          continue next;
        }
      }
      keys[size] = key;
      table[s] = ++size;
    }
    for (int i = size; i < keys.length; i++) {
      keys[i] = null;
    }
    return new DistinctKeys(keys, size, table);
  }

  /** The table slot to start looking for a key of this hash at: its bits mixed, then masked. */
  private static int slot(int hash, int mask) {
    int h = hash * 0x9E3779B9;
    return (h ^ (h >>> 16)) & mask;
  }

  @Override
  public boolean contains(Object o) {
    if (!(o instanceof String)) {
      return false;
    }
    int mask = table.length - 1;
    for (int s = slot(o.hashCode(), mask); table[s] != 0; s = (s + 1) & mask) {
      if (o.equals(keys[table[s] - 1])) {
        return true;
      }
    }
    return false;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Iterator<String> iterator() {
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < size;
      }

      @Override
      public String next() {
        if (next >= size) {
          throw new NoSuchElementException();
        }
        return keys[next++];
      }
    };
  }
}
