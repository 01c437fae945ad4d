package io.shardwise.spi;

import io.shardwise.client.Secret;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads typed values from configuration text and collects every problem instead of stopping at the
 * first, so that a configuration loader can report them all at once ({@link #finish()}).
 *
 * <p>Keys are given without the prefix ({@code timeout} for {@code shardwise.timeout}); problems
 * name the full key. Keys match loosely, as Spring Boot's relaxed binding does: case, dashes and
 * underscores are ignored ({@code failureMode} and {@code failure_mode} are {@code failure-mode}),
 * and {@code a[b].c} is {@code a.b.c}; an element with dots is written in brackets ({@code
 * cache.caches[users.by-id].ttl}, see {@link #element}). A blank value counts as not set.
 *
 * <p>Formats:
 *
 * <ul>
 *   <li>durations: a number and a unit, {@code ns us ms s m h d} ({@code 250ms}, {@code 2s}, {@code
 *       1.5s}), an ISO-8601 duration ({@code PT2S}), or {@code 0}
 *   <li>sizes: bytes ({@code 1048576}) or a number and a unit, {@code B KB MB GB} with {@code 1KB =
 *       1024 bytes} ({@code 512KB}, {@code 1MB})
 *   <li>choices: one of a fixed list, ignoring case; booleans: {@code true} or {@code false}
 * </ul>
 *
 * <p>Every key asked for is remembered: {@link #finish()} reports the keys that were set but never
 * asked for as unknown, with the closest known key as a suggestion. Values of secret keys ({@link
 * #secret}, or a name containing {@code password}, {@code secret} or {@code token}) never appear in
 * a problem.
 */
public final class SettingsReader {

  /** Shown instead of a secret value. */
  public static final String MASK = "******";

  private static final Pattern SIMPLE_DURATION =
      Pattern.compile("([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))\\s*([a-zA-Z]{1,2})");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([a-zA-Z]{0,3})");
  private static final String DURATION_FORMAT =
      "expected a number and a unit (ns, us, ms, s, m, h, d) such as 250ms or 2s";

  private final String prefix;
  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private final Set<String> read = new HashSet<>();
  private final Set<String> known = new LinkedHashSet<>();
  private final Set<String> secrets = new HashSet<>();
  private final List<String> problems = new ArrayList<>();

  private static final class Entry {
    final String key;
    final String value;

    Entry(String key, String value) {
      this.key = key;
      this.value = value;
    }
  }

  private SettingsReader(String prefix, Map<String, ?> settings) {
    this.prefix = Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(settings, "settings");
    for (Map.Entry<String, ?> e : settings.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        continue;
      }
      String key = e.getKey().strip();
      String normalized = normalize(key);
      Entry previous = entries.putIfAbsent(normalized, new Entry(key, e.getValue().toString()));
      if (previous != null) {
        String first = previous.key.compareTo(key) < 0 ? previous.key : key;
        String second = first.equals(key) ? previous.key : key;
        problems.add(
            prefix + first + " and " + prefix + second + " name the same key; set it once");
      }
    }
  }

  /**
   * A reader over {@code settings}, whose keys are relative to {@code prefix} ({@code timeout}
   * under {@code shardwise.}). Null keys and values are skipped.
   */
  public static SettingsReader of(String prefix, Map<String, ?> settings) {
    return new SettingsReader(prefix, settings);
  }

  /** The prefix problems put before a key, e.g. {@code shardwise.}. */
  public String prefix() {
    return prefix;
  }

  // ---- raw access ----------------------------------------------------------------------------

  /** Whether {@code key} is set (to a non-blank value); does not count as asking for it. */
  public boolean isSet(String key) {
    Entry e = entries.get(normalize(key));
    return e != null && !e.value.isBlank();
  }

  /** The value of {@code key}, stripped, if set to a non-blank value. */
  public Optional<String> text(String key) {
    Entry e = entry(key);
    return e == null || e.value.isBlank() ? Optional.empty() : Optional.of(e.value.strip());
  }

  /** The value of {@code key}, stripped, or {@code defaultValue}. */
  public String text(String key, String defaultValue) {
    return text(key).orElse(defaultValue);
  }

  /**
   * The value of {@code key}, as written (not stripped), marking the key secret: its value never
   * appears in a problem.
   */
  public Optional<String> secret(String key) {
    secrets.add(normalize(key));
    Entry e = entry(key);
    return e == null || e.value.isEmpty() ? Optional.empty() : Optional.of(e.value);
  }

  /**
   * The secret {@code key} refers to, resolved now ({@link Secret#resolve}: {@code env:NAME},
   * {@code file:/path}, {@code literal:TEXT} or the secret itself), or empty when the key is not
   * set or cannot be resolved; in that case the problem names the reference, never a value.
   */
  public Optional<Secret> resolvedSecret(String key) {
    Optional<String> reference = secret(key);
    if (reference.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Secret.resolve(reference.get()));
    } catch (IllegalArgumentException e) {
      problem(
          key, e.getMessage() + "; expected a password, env:NAME, file:/path or literal:TEXT");
      return Optional.empty();
    }
  }

  /**
   * The value of a required key; records {@code "<key>: missing; <expected>"} and returns empty if
   * it is not set.
   */
  public Optional<String> required(String key, String expected) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      problem(key, "missing; " + expected);
    }
    return value;
  }

  /**
   * The next key elements below {@code parent} among the keys set, as written: for {@code
   * cache.caches} and the keys {@code cache.caches.books.ttl} and {@code cache.caches.authors.ttl},
   * {@code books} and {@code authors}. Does not count as asking for any key.
   */
  public Set<String> children(String parent) {
    String p = normalize(parent) + ".";
    int depth = elements(parent).size();
    Set<String> names = new LinkedHashSet<>();
    for (Map.Entry<String, Entry> e : entries.entrySet()) {
      if (e.getKey().startsWith(p)) {
        List<String> elements = elements(e.getValue().key);
        if (elements.size() > depth) {
          names.add(elements.get(depth));
        }
      }
    }
    return names;
  }

  /**
   * {@code name} as one element of a key: as it is, or in brackets if it holds a dot ({@code
   * [users.by-id]}), so that {@code "cache.caches." + element(name) + ".ttl"} names the key of a
   * map entry.
   */
  public static String element(String name) {
    return name.indexOf('.') >= 0 ? "[" + name + "]" : name;
  }

  // ---- typed values --------------------------------------------------------------------------

  /**
   * One of {@code allowed} (ignoring case; returned as listed), or {@code defaultValue} when not
   * set. Records {@code "'x' is not allowed; expected one of a, b"} otherwise.
   */
  public String choice(String key, String defaultValue, Collection<String> allowed) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    for (String option : allowed) {
      if (option.equalsIgnoreCase(value.get())) {
        return option;
      }
    }
    problem(
        key,
        quote(key, value.get()) + " is not allowed; expected one of " + String.join(", ", allowed));
    return defaultValue;
  }

  /** {@code true} or {@code false} (ignoring case), or {@code defaultValue} when not set. */
  public boolean bool(String key, boolean defaultValue) {
    String value = choice(key, null, List.of("true", "false"));
    return value == null ? defaultValue : value.equals("true");
  }

  /** An integer in {@code min..max}, or {@code defaultValue} when not set or wrong. */
  public int integer(String key, int defaultValue, int min, int max) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    long parsed;
    try {
      parsed = Long.parseLong(value.get());
    } catch (NumberFormatException e) {
      problem(key, quote(key, value.get()) + " is not an integer");
      return defaultValue;
    }
    if (parsed < min) {
      problem(key, "must be >= " + min + " but was " + shown(key, value.get()));
      return defaultValue;
    }
    if (parsed > max) {
      problem(key, "must be <= " + max + " but was " + shown(key, value.get()));
      return defaultValue;
    }
    return (int) parsed;
  }

  /**
   * A finite number greater than {@code exclusiveMin}, or {@code defaultValue} when not set or
   * wrong.
   */
  public double decimalAbove(String key, double defaultValue, double exclusiveMin) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    double parsed;
    try {
      parsed = Double.parseDouble(value.get());
    } catch (NumberFormatException e) {
      parsed = Double.NaN;
    }
    if (Double.isNaN(parsed) || Double.isInfinite(parsed)) {
      problem(key, quote(key, value.get()) + " is not a number");
      return defaultValue;
    }
    if (!(parsed > exclusiveMin)) {
      problem(key, "must be > " + plain(exclusiveMin) + " but was " + shown(key, value.get()));
      return defaultValue;
    }
    return parsed;
  }

  /**
   * The longest duration any key accepts unless it says less: 106,751 days, the
   * most whole days a signed 64-bit count of nanoseconds holds, so that no duration overflows when
   * it is converted ({@link Duration#toNanos()}).
   */
  public static final Duration MAX_DURATION = Duration.ofDays(106_751);

  /**
   * The longest duration a key converted to a 32-bit count of milliseconds holds ({@code
   * 2147483647ms}, about 24.8 days), as socket and Netty timeouts are.
   */
  public static final Duration MAX_INT_MILLIS = Duration.ofMillis(Integer.MAX_VALUE);

  /**
   * A duration of at least {@code min} ({@code min} itself allowed) and at most {@link
   * #MAX_DURATION}, or {@code defaultValue} when not set or wrong. With {@code min} zero, zero is
   * allowed and negative durations are not.
   */
  public Duration duration(String key, Duration defaultValue, Duration min) {
    return duration(key, defaultValue, min, MAX_DURATION, "");
  }

  /**
   * A duration in {@code min..max}, or {@code defaultValue} when not set or wrong; {@code why} (may
   * be empty) says in the problem why {@code max} is the most, e.g. {@code "(a 32-bit count of
   * milliseconds)"}.
   */
  public Duration duration(String key, Duration defaultValue, Duration min, Duration max, String why) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    Duration parsed = parseDuration(value.get());
    if (parsed == null) {
      problem(key, quote(key, value.get()) + " is not a duration; " + DURATION_FORMAT);
      return defaultValue;
    }
    if (parsed.compareTo(min) < 0) {
      problem(key, "must be >= " + format(min) + " but was " + shown(key, value.get()));
      return defaultValue;
    }
    if (!checkMax(key, value.get(), parsed, max, why)) {
      return defaultValue;
    }
    return parsed;
  }

  private boolean checkMax(String key, String text, Duration parsed, Duration max, String why) {
    if (parsed.compareTo(max) <= 0) {
      return true;
    }
    problem(
        key,
        "must be at most "
            + format(max)
            + (why.isEmpty() ? "" : " " + why)
            + " but was "
            + shown(key, text));
    return false;
  }

  /**
   * A duration greater than zero and at most {@link #MAX_DURATION}, or {@code defaultValue} when
   * not set or wrong.
   */
  public Duration positiveDuration(String key, Duration defaultValue) {
    return positiveDuration(key, defaultValue, MAX_DURATION, "");
  }

  /** A duration in {@code (0, max]}, or {@code defaultValue} when not set or wrong. */
  public Duration positiveDuration(String key, Duration defaultValue, Duration max, String why) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    Duration parsed = parseDuration(value.get());
    if (parsed == null) {
      problem(key, quote(key, value.get()) + " is not a duration; " + DURATION_FORMAT);
      return defaultValue;
    }
    if (parsed.isNegative() || parsed.isZero()) {
      problem(key, "must be > 0 but was " + shown(key, value.get()));
      return defaultValue;
    }
    if (!checkMax(key, value.get(), parsed, max, why)) {
      return defaultValue;
    }
    return parsed;
  }

  /** A size in bytes in {@code min..max}, or {@code defaultValue} when not set or wrong. */
  public long bytes(String key, long defaultValue, long min, long max) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    long parsed = parseBytes(value.get());
    if (parsed < 0) {
      problem(
          key,
          quote(key, value.get())
              + " is not a size; expected a number of bytes, or a number and a unit (B, KB, MB, GB)"
              + " such as 512KB or 1MB");
      return defaultValue;
    }
    if (parsed < min) {
      problem(key, "must be >= " + min + " bytes but was " + shown(key, value.get()));
      return defaultValue;
    }
    if (parsed > max) {
      problem(key, "must be <= " + max + " bytes but was " + shown(key, value.get()));
      return defaultValue;
    }
    return parsed;
  }

  // ---- problems ------------------------------------------------------------------------------

  /** Records a problem of {@code key}: {@code "<prefix><key>: <message>"}. */
  public void problem(String key, String message) {
    problems.add(prefix + key + ": " + message);
  }

  /** Records a problem line as it is (it should name its key). */
  public void problem(String line) {
    problems.add(Objects.requireNonNull(line, "line"));
  }

  /** The problems so far, one line each. */
  public List<String> problems() {
    return List.copyOf(problems);
  }

  /**
   * Counts {@code key} as handled without reading it, so that {@link #finish()} does not report it
   * (a caller that has already reported it in its own words).
   */
  public void ignore(String key) {
    read.add(normalize(key));
  }

  /** The keys that are set but were never asked for, as written, without the prefix. */
  public List<String> unreadKeys() {
    List<String> unread = new ArrayList<>();
    for (Map.Entry<String, Entry> e : entries.entrySet()) {
      if (!read.contains(e.getKey())) {
        unread.add(e.getValue().key);
      }
    }
    return unread;
  }

  /**
   * Reports every key that is set but was never asked for ({@code unknown key shardwise.timout (did
   * you mean shardwise.timeout?)}), then throws if there is any problem.
   *
   * @throws InvalidSettingsException with every problem, one line each
   */
  public void finish() {
    for (String key : unreadKeys()) {
      String suggestion = suggest(key);
      problems.add(
          "unknown key "
              + prefix
              + key
              + (suggestion == null ? "" : " (did you mean " + prefix + suggestion + "?)"));
    }
    unreadKeys().forEach(this::ignore);
    throwIfProblems();
  }

  /** Throws if any problem was recorded. */
  public void throwIfProblems() {
    if (!problems.isEmpty()) {
      throw new InvalidSettingsException(problems);
    }
  }

  /**
   * The value as it may be shown in a message: {@link #MASK} for a secret key, else the value
   * itself.
   */
  public String shown(String key, String value) {
    return isSecret(key) ? MASK : value;
  }

  /** Whether {@code key} was read as a secret or its name says it holds one. */
  public boolean isSecret(String key) {
    return secrets.contains(normalize(key)) || looksSecret(key);
  }

  /** Whether a key's name says it holds a secret: it contains password, secret or token. */
  public static boolean looksSecret(String key) {
    String n = normalize(key);
    return n.contains("password") || n.contains("secret") || n.contains("token");
  }

  // ---- formats -------------------------------------------------------------------------------

  /**
   * Parses a duration: a number and a unit ({@code 250ms}, {@code 1.5s}), ISO-8601 ({@code PT2S}),
   * or {@code 0}; null when {@code text} is none of them.
   */
  public static Duration parseDuration(String text) {
    String t = text.strip();
    if (t.equals("0")) {
      return Duration.ZERO;
    }
    if (t.startsWith("P") || t.startsWith("p") || t.startsWith("-P") || t.startsWith("-p")) {
      try {
        return Duration.parse(t);
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    Matcher m = SIMPLE_DURATION.matcher(t);
    if (!m.matches()) {
      return null;
    }
    long nanosPerUnit;
    switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "ns":
        nanosPerUnit = 1L;
        break;
      case "us":
        nanosPerUnit = 1_000L;
        break;
      case "ms":
        nanosPerUnit = 1_000_000L;
        break;
      case "s":
        nanosPerUnit = 1_000_000_000L;
        break;
      case "m":
        nanosPerUnit = 60_000_000_000L;
        break;
      case "h":
        nanosPerUnit = 3_600_000_000_000L;
        break;
      case "d":
        nanosPerUnit = 86_400_000_000_000L;
        break;
      default:
        return null;
    }
    try {
      java.math.BigDecimal nanos =
          new java.math.BigDecimal(m.group(1)).multiply(java.math.BigDecimal.valueOf(nanosPerUnit));
      java.math.BigDecimal[] secondsAndNanos =
          nanos.divideAndRemainder(java.math.BigDecimal.valueOf(1_000_000_000L));
      return Duration.ofSeconds(secondsAndNanos[0].longValueExact())
          .plusNanos(secondsAndNanos[1].longValue());
    } catch (ArithmeticException e) {
      return null;
    }
  }

  /**
   * Parses a size: bytes, or a number and a unit ({@code B KB MB GB}, ignoring case, 1024-based);
   * -1 when {@code text} is not one.
   */
  public static long parseBytes(String text) {
    Matcher m = SIZE.matcher(text.strip());
    if (!m.matches()) {
      return -1;
    }
    long multiplier;
    switch (m.group(2).toUpperCase(Locale.ROOT)) {
      case "":
      case "B":
        multiplier = 1L;
        break;
      case "KB":
        multiplier = 1L << 10;
        break;
      case "MB":
        multiplier = 1L << 20;
        break;
      case "GB":
        multiplier = 1L << 30;
        break;
      default:
        return -1;
    }
    try {
      return Math.multiplyExact(Long.parseLong(m.group(1)), multiplier);
    } catch (NumberFormatException | ArithmeticException e) {
      return -1;
    }
  }

  /**
   * A short form of {@code d} that {@link #parseDuration} reads back: {@code 250ms}, {@code 2s}.
   */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0";
    }
    long nanos;
    try {
      nanos = d.toNanos();
    } catch (ArithmeticException e) {
      return d.toString();
    }
    long[] units = {
      86_400_000_000_000L,
      3_600_000_000_000L,
      60_000_000_000L,
      1_000_000_000L,
      1_000_000L,
      1_000L,
      1L
    };
    String[] names = {"d", "h", "m", "s", "ms", "us", "ns"};
    for (int i = 0; i < units.length; i++) {
      if (nanos % units[i] == 0) {
        return (nanos / units[i]) + names[i];
      }
    }
    return nanos + "ns";
  }

  /**
   * The form keys are compared in: lower case, without dashes and underscores, {@code a[b]} as
   * {@code a.b}.
   */
  public static String normalize(String key) {
    StringBuilder sb = new StringBuilder(key.length());
    for (String element : elements(key)) {
      if (sb.length() > 0) {
        sb.append('.');
      }
      boolean dotted = element.indexOf('.') >= 0;
      if (dotted) {
        sb.append('[');
      }
      for (int i = 0; i < element.length(); i++) {
        char c = element.charAt(i);
        if (c != '-' && c != '_') {
          sb.append(Character.toLowerCase(c));
        }
      }
      if (dotted) {
        sb.append(']');
      }
    }
    return sb.toString();
  }

  /** The elements of a key: split at dots, except inside brackets ({@code a[b.c].d}: a, b.c, d). */
  private static List<String> elements(String key) {
    List<String> elements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int i = 0;
    while (i < key.length()) {
      char c = key.charAt(i);
      if (c == '[') {
        int close = key.indexOf(']', i + 1);
        if (close < 0) {
          current.append(key, i, key.length());
          break;
        }
        if (current.length() > 0) {
          elements.add(current.toString());
          current.setLength(0);
        }
        elements.add(key.substring(i + 1, close));
        i = close + 1;
        if (i < key.length() && key.charAt(i) == '.') {
          i++;
        }
        continue;
      }
      if (c == '.') {
        elements.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
      i++;
    }
    if (current.length() > 0 || key.isEmpty() || key.endsWith(".")) {
      elements.add(current.toString());
    }
    return elements;
  }

  // ---- plumbing ------------------------------------------------------------------------------

  private Entry entry(String key) {
    String n = normalize(key);
    read.add(n);
    known.add(key);
    return entries.get(n);
  }

  private String quote(String key, String value) {
    return isSecret(key) ? MASK : "'" + value + "'";
  }

  private static String plain(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }

  /** The known key closest to {@code unknown}, or null if none is close. */
  private String suggest(String unknown) {
    String u = normalize(unknown);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : known) {
      String c = normalize(candidate);
      int distance = c.endsWith("." + u) || u.endsWith("." + c) ? 1 : levenshtein(u, c);
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return best != null && bestDistance <= Math.max(2, u.length() / 3) ? best : null;
  }

  private static int levenshtein(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] =
            Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
