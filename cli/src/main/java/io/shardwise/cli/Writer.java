package io.shardwise.cli;

import io.shardwise.core.RouterSpec;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The client or proxy that uses a placement: what {@code detect} groups its modes by, and what
 * {@code --writer} names. Modes of different writers can place a server list's keys alike and
 * still differ once the list changes, so only the writer tells which one to keep.
 */
enum Writer {
  TWEMPROXY,
  LIBMEMCACHED,
  SPYMEMCACHED,
  XMEMCACHED,
  JEDIS,
  LIBKETAMA,
  /** Shardwise's own routers (ring, hrw, jump, multiprobe, maglev, modulo). */
  SHARDWISE;

  /** The name {@code --writer} takes, lower case. */
  String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The writer named {@code text}, ignoring case. */
  static Writer of(String text) {
    String t = text == null ? "" : text.strip().toUpperCase(Locale.ROOT);
    for (Writer w : values()) {
      if (w.name().equals(t)) {
        return w;
      }
    }
    throw new IllegalArgumentException("--writer must be one of "
        + Arrays.stream(values()).map(Writer::id).collect(Collectors.joining(", ")) + " but was '" + text + "'");
  }

  /** The writer whose placement {@code spec} reproduces. */
  static Writer of(RouterSpec spec) {
    switch (spec.type()) {
      case KETAMA:
        switch (spec.ketamaCompatibility()) {
          case "libketama":
            return LIBKETAMA;
          case "libmemcached":
            return LIBMEMCACHED;
          case "twemproxy":
            return TWEMPROXY;
          default:
            return SPYMEMCACHED; // spymemcached, spymemcached-weighted
        }
      case COMPAT:
        return valueOf(spec.compatMode().peer().name());
      default:
        return SHARDWISE;
    }
  }

  /** Whether the writer is a Java client whose values spymemcached's transcoder flags describe. */
  boolean javaClient() {
    return this == SPYMEMCACHED || this == XMEMCACHED || this == SHARDWISE;
  }
}
