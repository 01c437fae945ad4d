package io.shardwise.redis;

import io.shardwise.client.CachedValue;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The hits of one {@code MGET} as the map {@code getMulti} returns: the keys asked and the values
 * Redis answered in the same order (null for a key it does not hold), found by an open-addressing
 * table of the hits' positions. A {@link CachedValue} is made when a value is read, so a hit costs
 * two to four table slots (8-16 bytes) instead of a {@link java.util.HashMap} entry, its slot and a
 * {@link CachedValue} (about 60 bytes). A key asked twice is one entry, its first answer (MGET
 * answers both alike). Read-only.
 */
final class MgetReply extends AbstractMap<String, CachedValue> {

  private final List<String> keys;
  private final List<byte[]> values;
  /** Position + 1 of a hit in {@link #keys}, 0 for an empty slot; linear probing. */
  private final int[] table;
  private final int size;

  /**
   * @param keys the keys asked, random access
   * @param values what Redis answered for each, in order (null for none)
   */
  MgetReply(List<String> keys, List<byte[]> values) {
    if (keys.size() != values.size()) {
      throw new IllegalStateException(
          "MGET of " + keys.size() + " keys answered " + values.size() + " values");
    }
    this.keys = keys;
    this.values = values;
    int hits = 0;
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) != null) {
        hits++;
      }
    }
    int[] slots = new int[Integer.highestOneBit(Math.max(2, 2 * hits) - 1) << 1];
    int mask = slots.length - 1;
    int distinct = 0;
    next:
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        continue;
      }
      String key = keys.get(i);
      int s = slot(key.hashCode(), mask);
      for (; slots[s] != 0; s = (s + 1) & mask) {
        if (key.equals(keys.get(slots[s] - 1))) {
          continue next;
        }
      }
      slots[s] = i + 1;
      distinct++;
    }
    this.table = slots;
    this.size = distinct;
  }

  /** The table slot to start looking for a key of this hash at: its bits mixed, then masked. */
  private static int slot(int hash, int mask) {
    int h = hash * 0x9E3779B9;
    return (h ^ (h >>> 16)) & mask;
  }

  /** The position of the hit {@code key} in {@link #keys}, or -1. */
  private int indexOf(Object key) {
    if (!(key instanceof String) || size == 0) {
      return -1;
    }
    int mask = table.length - 1;
    for (int s = slot(key.hashCode(), mask); table[s] != 0; s = (s + 1) & mask) {
      int at = table[s] - 1;
      if (key.equals(keys.get(at))) {
        return at;
      }
    }
    return -1;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public boolean isEmpty() {
    return size == 0;
  }

  @Override
  public boolean containsKey(Object key) {
    return indexOf(key) >= 0;
  }

  @Override
  public CachedValue get(Object key) {
    int at = indexOf(key);
    return at < 0 ? null : CachedValue.of(values.get(at), 0);
  }

  @Override
  public Set<Map.Entry<String, CachedValue>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<String, CachedValue>> iterator() {
        return new Iterator<>() {
          /** The next hit's position, or the number of keys after the last. */
          private int next = advance(0);

          /** The first hit at or after {@code from} that is its key's first answer. */
          private int advance(int from) {
            int i = from;
            while (i < keys.size() && (values.get(i) == null || indexOf(keys.get(i)) != i)) {
              i++;
            }
            return i;
          }

          @Override
          public boolean hasNext() {
            return next < keys.size();
          }

          @Override
          public Map.Entry<String, CachedValue> next() {
            if (next >= keys.size()) {
              throw new NoSuchElementException();
            }
            int at = next;
            next = advance(at + 1);
            return new AbstractMap.SimpleImmutableEntry<>(
                keys.get(at), CachedValue.of(values.get(at), 0));
          }
        };
      }

      @Override
      public int size() {
        return size;
      }
    };
  }
}
