package io.shardwise.core.config;

import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One {@code shardwise.*} key of the configuration: its name (without the prefix), its type, its
 * default as written in a properties file, the rule its value must follow, and what it does. {@link
 * ShardwiseConfig#keys()} lists them all; the loader reads each key through its entry, and the
 * documentation and the Spring Boot metadata are checked against the same list.
 */
public final class ConfigKey {

  /** What a key holds. */
  public enum Type {
    /** Free text with a rule of its own (server lists, paths, hash tags, modes). */
    TEXT,
    /** One of a fixed list of words. */
    CHOICE,
    BOOLEAN,
    INTEGER,
    /** A decimal number. */
    DECIMAL,
    /** A duration such as {@code 250ms}, {@code 10s}, {@code 2m}. */
    DURATION,
    /** A size in bytes such as {@code 512KB}. */
    BYTES
  }

  private final String name;
  private final Type type;
  private final String defaultValue;
  private final String allowed;
  private final String description;
  // The rule, for the typed reads; unused fields are null or 0.
  private final List<String> choices;
  private final long min;
  private final long max;
  private final Duration minDuration;
  private final Duration maxDuration;
  private final String note;

  private ConfigKey(Builder b) {
    this.name = Objects.requireNonNull(b.name, "name");
    this.type = Objects.requireNonNull(b.type, "type");
    this.defaultValue = Objects.requireNonNull(b.defaultValue, "defaultValue");
    this.allowed = Objects.requireNonNull(b.allowed, "allowed");
    this.description = Objects.requireNonNull(b.description, "description");
    this.choices = b.choices;
    this.min = b.min;
    this.max = b.max;
    this.minDuration = b.minDuration;
    this.maxDuration = b.maxDuration;
    this.note = b.note;
  }

  /** The key without the {@code shardwise.} prefix, e.g. {@code bounded.epsilon}. */
  public String name() {
    return name;
  }

  /** {@code shardwise.} and the name. */
  public String fullName() {
    return ShardwiseConfig.PREFIX + name;
  }

  public Type type() {
    return type;
  }

  /**
   * The default as it would be written in a properties file ({@code 250ms}), or a phrase in
   * parentheses when there is no single value ({@code (required)}, {@code (per backend)}).
   */
  public String defaultValue() {
    return defaultValue;
  }

  /** What the key accepts, in words: {@code journal, flush, keep}, {@code > 0}, ... */
  public String allowed() {
    return allowed;
  }

  public String description() {
    return description;
  }

  /** For {@link Type#CHOICE}: the words allowed; else empty. */
  public List<String> choices() {
    return choices == null ? List.of() : choices;
  }

  @Override
  public String toString() {
    return fullName() + " (default " + defaultValue + "; " + allowed + ")";
  }

  // ---- reading ---------------------------------------------------------------------------------

  /** The {@link Type#DURATION} value, {@code fallback} when not set; a problem goes to {@code r}. */
  Duration duration(SettingsReader r, Duration fallback) {
    check(Type.DURATION);
    return minDuration == null
        ? r.positiveDuration(name, fallback, maxDuration, note)
        : r.duration(name, fallback, minDuration, maxDuration, note);
  }

  int integer(SettingsReader r, int fallback) {
    check(Type.INTEGER);
    return r.integer(name, fallback, (int) min, (int) max);
  }

  /** The {@link Type#DECIMAL} value, which must be above the rule's minimum. */
  double decimal(SettingsReader r, double fallback) {
    check(Type.DECIMAL);
    return r.decimalAbove(name, fallback, min);
  }

  boolean bool(SettingsReader r, boolean fallback) {
    check(Type.BOOLEAN);
    return r.bool(name, fallback);
  }

  /** The {@link Type#CHOICE} value, {@code fallback} (null for none) when not set. */
  String choice(SettingsReader r, String fallback) {
    check(Type.CHOICE);
    return r.choice(name, fallback, choices);
  }

  long bytes(SettingsReader r, long fallback) {
    check(Type.BYTES);
    return r.bytes(name, fallback, min, max);
  }

  private void check(Type expected) {
    if (type != expected) {
      throw new IllegalStateException(fullName() + " is a " + type + " key, not " + expected);
    }
  }

  // ---- the table's builders --------------------------------------------------------------------

  static Builder key(String name, Type type) {
    return new Builder(name, type);
  }

  /** An entry of the table ({@code ConfigKeys}); the rule's words are made from the rule. */
  static final class Builder {
    private final String name;
    private final Type type;
    private String defaultValue;
    private String allowed;
    private String description;
    private List<String> choices;
    private long min;
    private long max;
    private Duration minDuration;
    private Duration maxDuration;
    private String note = "";

    private Builder(String name, Type type) {
      this.name = name;
      this.type = type;
    }

    Builder byDefault(String value) {
      this.defaultValue = value;
      return this;
    }

    Builder byDefault(Duration value) {
      return byDefault(SettingsReader.format(value));
    }

    Builder byDefault(long value) {
      return byDefault(Long.toString(value));
    }

    /** The rule in words, where it is not one {@link #between} or {@link #oneOf} can write. */
    Builder allowing(String words) {
      this.allowed = words;
      return this;
    }

    Builder oneOf(List<String> words) {
      this.choices = List.copyOf(words);
      return allowing(String.join(", ", words));
    }

    /** A whole number (or byte count) in {@code [min, max]}, the rule in words as given. */
    Builder between(long min, long max, String words) {
      this.min = min;
      this.max = max;
      return allowing(words);
    }

    /**
     * A duration in {@code [min, max]}, or in {@code (0, max]} for a null {@code min}; {@code note}
     * follows the bounds in a problem's message.
     */
    Builder between(Duration min, Duration max, String words, String note) {
      this.minDuration = min;
      this.maxDuration = max;
      this.note = note;
      return allowing(words);
    }

    Builder doing(String description) {
      this.description = description;
      return this;
    }

    ConfigKey build() {
      return new ConfigKey(this);
    }
  }
}
