package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.near.NearCache;
import io.shardwise.core.internal.route.Topology;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Gets and getMultis through the near cache: a key kept there is answered from it, without a
 * request; every other key is read from the servers as without the near cache, and a value read
 * is offered to it with the ticket taken before the read was sent ({@link NearCache}). The ticket
 * is taken before the topology is entered: a change drops the near cache after it is installed, so
 * a read on the topology before keeps nothing.
 */
public final class NearGets<V> {

  private final NearCache near;
  private final Gets<V> gets;
  private final ValueCodec<V> codec;
  /** {@link #decodeOrNull}, made once: a method reference would be made per read. */
  private final Function<CachedValue, V> decodeOrNull = this::decodeOrNull;

  public NearGets(NearCache near, Gets<V> gets, ValueCodec<V> codec) {
    this.near = near;
    this.gets = gets;
    this.codec = codec;
  }

  /** A get of {@code key}: answered here, or read on the topology {@code enter} counts the read on. */
  public CompletableFuture<V> get(String key, Supplier<Topology> enter) {
    CachedValue kept = near.get(key);
    if (kept != null) {
      try {
        return CompletableFuture.completedFuture(codec.decode(kept));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    NearCache.Ticket ticket = near.ticket(key);
    Topology t = enter.get();
    if (ticket == null) {
      return gets.get(t, key, decodeOrNull);
    }
    return gets.get(
        t,
        key,
        stored -> {
          if (stored != null) {
            near.offer(ticket, stored);
          }
          return decodeOrNull(stored);
        });
  }

  private V decodeOrNull(CachedValue stored) {
    return stored == null ? null : codec.decode(stored);
  }

  /**
   * A getMulti of {@code distinct}: the keys kept here are answered from here, the others read in
   * one getMulti on the topology {@code enter} counts it on (none is entered when every key is
   * kept). The result lists every key in {@code distinct}'s order, as without the near cache.
   */
  public PendingGetMulti<V> start(Set<String> distinct, Supplier<Topology> enter) {
    Map<String, CachedValue> kept = null;
    Map<String, NearCache.Ticket> tickets = null;
    Set<String> rest = null;
    for (String key : distinct) {
      CachedValue v = near.get(key);
      if (v != null) {
        if (kept == null) {
          kept = new HashMap<>();
          rest = new LinkedHashSet<>(distinct); // the kept keys are taken out below
        }
        kept.put(key, v);
        continue;
      }
      NearCache.Ticket ticket = near.ticket(key);
      if (ticket != null) {
        if (tickets == null) {
          tickets = new HashMap<>();
        }
        tickets.put(key, ticket);
      }
    }
    if (kept != null) {
      rest.removeAll(kept.keySet());
    } else {
      rest = distinct;
    }
    Map<String, CachedValue> local = kept;
    if (rest.isEmpty()) {
      return new PendingGetMulti<>(CompletableFuture.completedFuture(null), () -> merge(distinct, local, null));
    }
    Map<String, NearCache.Ticket> offers = tickets;
    PendingGetMulti<V> read =
        gets.start(
            enter.get(),
            rest,
            offers == null
                ? null
                : (key, value) -> {
                  NearCache.Ticket ticket = offers.get(key);
                  if (ticket != null) {
                    near.offer(ticket, value);
                  }
                });
    return local == null ? read : new PendingGetMulti<>(read.done, () -> merge(distinct, local, read.result()));
  }

  /**
   * Refresh-ahead ({@link NearCache#refreshWith}): reads {@code keys}, whose entries are still
   * served, in one getMulti on the topology {@code enter} counts it on, and offers each value found
   * with a ticket taken now, so that a write or an invalidation meanwhile wins as for any read. A key
   * the servers no longer have loses its entry; a key whose read failed keeps it until its bound.
   */
  public void refresh(Set<String> keys, Supplier<Topology> enter) {
    Map<String, NearCache.Ticket> tickets = new HashMap<>(keys.size() * 4 / 3 + 1);
    for (String key : keys) {
      tickets.put(key, near.refreshTicket(key));
    }
    Set<String> found = ConcurrentHashMap.newKeySet(keys.size());
    PendingGetMulti<V> read =
        gets.start(
            enter.get(),
            keys,
            (key, value) -> {
              found.add(key);
              near.offer(tickets.get(key), value);
            });
    read.done.thenRun(
        () -> {
          if (found.size() == keys.size()) {
            return; // the common case: no result to build
          }
          Map<String, ShardwiseException> errors = read.result().errors();
          for (String key : keys) {
            if (!found.contains(key) && !errors.containsKey(key)) {
              near.refreshedGone(tickets.get(key));
            }
          }
        });
  }

  /** The result of a getMulti of {@code distinct} of which {@code kept} were answered here and the rest in {@code read}. */
  private MultiResult<V> merge(Set<String> distinct, Map<String, CachedValue> kept, MultiResult<V> read) {
    MultiResult.Builder<V> out = MultiResult.builder(distinct.size());
    Map<String, V> values = read == null ? Map.of() : read.values();
    Map<String, ShardwiseException> errors = read == null ? Map.of() : read.errors();
    for (String key : distinct) {
      CachedValue v = kept.get(key);
      if (v != null) {
        try {
          out.hit(key, codec.decode(v));
        } catch (RuntimeException e) {
          out.error(key, new ShardwiseException("value of key '" + key + "' kept in the near cache cannot be decoded: " + e.getMessage(), e));
        }
      } else if (values.get(key) != null) {
        out.hit(key, values.get(key));
      } else if (errors.get(key) != null) {
        out.error(key, errors.get(key));
      } else {
        out.miss(key);
      }
    }
    return out.build();
  }
}
