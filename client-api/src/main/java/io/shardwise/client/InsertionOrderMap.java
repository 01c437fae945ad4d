package io.shardwise.client;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The values of a {@link MultiResult}: a map from keys to values that iterates in the order the
 * keys were added, for the builder to add to and everyone else to read (its {@code put} throws).
 * It holds the keys and values in two arrays, in order, and finds a key by an open-addressing
 * table of positions: about 18 bytes per entry where a {@link java.util.LinkedHashMap} takes 50
 * (an entry object of 40 bytes and its table slot), which a {@code getMulti} of many keys pays once
 * per hit. Keys are not null; values may be. Not thread-safe while it is added to.
 */
final class InsertionOrderMap<V> extends AbstractMap<String, V> {

  /** Most keys: the table, twice as large, must still fit an array. */
  private static final int MAX_KEYS = 1 << 29;

  private String[] keys;
  private Object[] values;
  /** Position + 1 of a key in {@link #keys}, 0 for an empty slot; linear probing. */
  private int[] table;
  private int size;
  private Set<String> keySet;
  private Collection<V> valueView;
  private Set<Map.Entry<String, V>> entrySet;

  /** Room for {@code expected} entries without growing (more are fine). */
  InsertionOrderMap(int expected) {
    int room = Math.max(4, Math.min(expected, MAX_KEYS));
    keys = new String[room];
    values = new Object[room];
    table = new int[tableSize(room)];
  }

  /** The smallest power of two of at least twice {@code entries} slots. */
  private static int tableSize(int entries) {
    return Integer.highestOneBit(2 * entries - 1) << 1;
  }

  /** The table slot to start looking for a key of this hash at: its bits mixed, then masked. */
  private static int slot(int hash, int mask) {
    int h = hash * 0x9E3779B9;
    return (h ^ (h >>> 16)) & mask;
  }

  /** The position of {@code key} in {@link #keys}, or -1. */
  private int indexOf(Object key) {
    if (!(key instanceof String) || size == 0) {
      return -1;
    }
    int mask = table.length - 1;
    for (int s = slot(key.hashCode(), mask); ; s = (s + 1) & mask) {
      int at = table[s] - 1;
      if (at < 0) {
        return -1;
      }
      if (key.equals(keys[at])) {
        return at;
      }
    }
  }

  /** Adds {@code key} with {@code value} at the end; false (and nothing added) if it is there. */
  boolean add(String key, V value) {
    int mask = table.length - 1;
    int s = slot(key.hashCode(), mask);
    for (; table[s] != 0; s = (s + 1) & mask) {
      if (key.equals(keys[table[s] - 1])) {
        return false;
      }
    }
    if (size == keys.length) {
      grow();
      add(key, value);
      return true;
    }
    keys[size] = key;
    values[size] = value;
    table[s] = ++size;
    return true;
  }

  private void grow() {
    if (size >= MAX_KEYS) {
      throw new IllegalStateException("more than " + MAX_KEYS + " values");
    }
    int room = Math.min(MAX_KEYS, 2 * size);
    keys = Arrays.copyOf(keys, room);
    values = Arrays.copyOf(values, room);
    table = new int[tableSize(room)];
    int mask = table.length - 1;
    for (int i = 0; i < size; i++) {
      int s = slot(keys[i].hashCode(), mask);
      while (table[s] != 0) {
        s = (s + 1) & mask;
      }
      table[s] = i + 1;
    }
  }

  @SuppressWarnings("unchecked") // only values of type V are added
  private V valueAt(int i) {
    return (V) values[i];
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
  public V get(Object key) {
    int i = indexOf(key);
    return i < 0 ? null : valueAt(i);
  }

  @Override
  public void forEach(BiConsumer<? super String, ? super V> action) {
    for (int i = 0; i < size; i++) {
      action.accept(keys[i], valueAt(i));
    }
  }

  @Override
  public Set<String> keySet() {
    if (keySet == null) {
      keySet =
          new AbstractSet<>() {
            @Override
            public Iterator<String> iterator() {
              return new Positions<>() {
                @Override
                String at(int i) {
                  return keys[i];
                }
              };
            }

            @Override
            public int size() {
              return size;
            }

            @Override
            public boolean contains(Object o) {
              return containsKey(o);
            }
          };
    }
    return keySet;
  }

  @Override
  public Collection<V> values() {
    if (valueView == null) {
      valueView =
          new AbstractCollection<>() {
            @Override
            public Iterator<V> iterator() {
              return new Positions<>() {
                @Override
                V at(int i) {
                  return valueAt(i);
                }
              };
            }

            @Override
            public int size() {
              return size;
            }
          };
    }
    return valueView;
  }

  @Override
  public Set<Map.Entry<String, V>> entrySet() {
    if (entrySet == null) {
      entrySet =
          new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, V>> iterator() {
              return new Positions<>() {
                @Override
                Map.Entry<String, V> at(int i) {
                  return new AbstractMap.SimpleImmutableEntry<>(keys[i], valueAt(i));
                }
              };
            }

            @Override
            public int size() {
              return size;
            }
          };
    }
    return entrySet;
  }

  /** An iterator over the positions 0 to {@link #size} - 1, in order; no removal. */
  private abstract class Positions<T> implements Iterator<T> {
    private int next;

    abstract T at(int i);

    @Override
    public boolean hasNext() {
      return next < size;
    }

    @Override
    public T next() {
      if (next >= size) {
        throw new NoSuchElementException();
      }
      return at(next++);
    }
  }
}
