package io.shardwise.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A few values read from a fleet, to tell which codec reads them: their bytes and, on memcached,
 * their flags.
 *
 * @param values the values read
 * @param notStrings Redis keys that hold another type than a string (a hash, a list, ...)
 * @param touched whether reading counted as an access for the servers' eviction (Redis before 7.2)
 * @param problems why values could not be read on some server, one line each
 */
record ValueSample(List<Value> values, int notStrings, boolean touched, List<String> problems) {

  /** One stored value: its bytes and its flags ({@link #NO_FLAGS} on Redis, which keeps none). */
  record Value(byte[] bytes, int flags) {}

  static final int NO_FLAGS = -1;

  static final ValueSample NONE = new ValueSample(List.of(), 0, false, List.of());

  /** The values of both samples. */
  ValueSample plus(ValueSample other) {
    List<Value> all = new ArrayList<>(values);
    all.addAll(other.values);
    List<String> why = new ArrayList<>(problems);
    why.addAll(other.problems);
    return new ValueSample(all, notStrings + other.notStrings, touched || other.touched, why);
  }
}
