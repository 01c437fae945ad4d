package io.shardwise.cli;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * Which of the built-in codecs ({@code shardwise.codec}: spymemcached, utf8, bytes, java) reads
 * the values sampled on a fleet, from their shape: Java serialization's stream header, UTF-8
 * text, other bytes, and on memcached the flags spymemcached's transcoder sets (1 serialized, 2
 * compressed, the type in the second byte). The first codec that reads every sampled value is
 * proposed.
 *
 * @param codec the codec to configure, or null when no value was read
 * @param reason why, in one sentence
 */
record CodecProposal(String codec, String reason) {

  private static final int FLAG_SERIALIZED = 1;
  private static final int FLAG_COMPRESSED = 2;
  private static final int SPECIAL_MASK = 0xff00;
  /** spymemcached's last special type, {@code SPECIAL_BYTEARRAY}. */
  private static final int LAST_SPECIAL = 8;

  private enum Shape {
    JAVA_SERIALIZED("Java-serialized"),
    TEXT("UTF-8 text"),
    BINARY("other bytes");

    final String description;

    Shape(String description) {
      this.description = description;
    }
  }

  /**
   * The codec for {@code sample} on Redis or memcached, where the fleet was written by {@code
   * writer} (null when not known).
   */
  static CodecProposal of(boolean redis, Writer writer, ValueSample sample) {
    List<ValueSample.Value> values = sample.values();
    if (values.isEmpty()) {
      return new CodecProposal(null, redis
          ? "no value read; java, the default for Redis, reads only Java-serialized values: values written by"
              + " Jedis or through twemproxy are usually raw strings, which utf8 reads and java fails on with"
              + " 'invalid stream header'"
          : "no value read; spymemcached, the default for memcached, reads what spymemcached's and"
              + " Xmemcached's transcoders store; utf8 and bytes suit the text and raw values of other clients");
    }
    boolean javaWriter = writer == null || writer.javaClient();
    List<String> order = redis ? List.of("java", "utf8", "bytes")
        : javaWriter ? List.of("spymemcached", "utf8", "java", "bytes") : List.of("utf8", "spymemcached", "java", "bytes");
    String codec = "bytes";
    for (String c : order) {
      if (values.stream().allMatch(reads(c, redis))) {
        codec = c;
        break;
      }
    }
    String shapes = describe(redis, values);
    String reason;
    switch (codec) {
      case "utf8":
        reason = "it reads every value read (" + shapes + ")"
            + (redis ? "; java, the default for Redis, fails on them with 'invalid stream header'"
                : values.stream().allMatch(reads("spymemcached", false))
                    ? "; spymemcached, the default for memcached, reads them as strings too" : "");
        break;
      case "spymemcached":
        reason = "the values read carry spymemcached's transcoder flags (" + shapes + ")";
        break;
      case "java":
        reason = "the values read are Java-serialized (" + shapes + ")";
        break;
      default:
        reason = "no other built-in codec reads every value read (" + shapes + "); bytes hands over the stored"
            + " bytes: decode them yourself, or write a ValueCodec for the writer's format (PHP's memcached"
            + " extension and pylibmc, for instance, set flags of their own)";
        break;
    }
    if (sample.notStrings() > 0) {
      reason += "; " + sample.notStrings() + " sampled keys hold hashes, lists or other types, which Shardwise"
          + " does not read";
    }
    return new CodecProposal(codec, reason);
  }

  /** Whether the built-in codec {@code codec} decodes a value into what was stored. */
  private static Predicate<ValueSample.Value> reads(String codec, boolean redis) {
    switch (codec) {
      case "spymemcached":
        return v -> !redis && spymemcachedReads(v);
      case "utf8":
        return v -> shape(v) == Shape.TEXT && (redis || (v.flags() & ~FLAG_COMPRESSED) == 0);
      case "java":
        return v -> shape(v) == Shape.JAVA_SERIALIZED;
      default:
        return v -> true;
    }
  }

  private static boolean spymemcachedReads(ValueSample.Value v) {
    int flags = v.flags();
    int special = (flags & SPECIAL_MASK) >>> 8;
    if ((flags & ~(SPECIAL_MASK | FLAG_SERIALIZED | FLAG_COMPRESSED)) != 0 || special > LAST_SPECIAL) {
      return false;
    }
    if ((flags & FLAG_SERIALIZED) != 0) {
      return special == 0 && shape(v) == Shape.JAVA_SERIALIZED;
    }
    return special != 0 || shape(v) == Shape.TEXT;
  }

  /** For instance "12 UTF-8 text, 3 Java-serialized; flags 0 (12), 1 (3)". */
  static String describe(boolean redis, List<ValueSample.Value> values) {
    Map<Shape, Integer> shapes = new TreeMap<>();
    Map<Integer, Integer> flags = new TreeMap<>();
    for (ValueSample.Value v : values) {
      shapes.merge(shape(v), 1, Integer::sum);
      flags.merge(v.flags(), 1, Integer::sum);
    }
    List<String> parts = new ArrayList<>();
    shapes.forEach((shape, n) -> parts.add(n + " " + shape.description));
    String text = String.join(", ", parts);
    if (!redis) {
      List<String> f = new ArrayList<>();
      flags.forEach((flag, n) -> f.add((flag > 9 ? "0x" + Integer.toHexString(flag) : flag.toString()) + " (" + n + ")"));
      text += "; flags " + String.join(", ", f);
    }
    return text;
  }

  private static Shape shape(ValueSample.Value v) {
    byte[] b = v.bytes();
    if (v.flags() != ValueSample.NO_FLAGS && (v.flags() & FLAG_COMPRESSED) != 0) {
      b = gunzip(b);
    }
    if (b.length >= 4 && (b[0] & 0xFF) == 0xAC && (b[1] & 0xFF) == 0xED && b[2] == 0 && b[3] == 5) {
      return Shape.JAVA_SERIALIZED;
    }
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b));
      return Shape.TEXT;
    } catch (CharacterCodingException e) {
      return Shape.BINARY;
    }
  }

  /** The gunzipped bytes, or {@code b} itself when it is not gzip data. */
  private static byte[] gunzip(byte[] b) {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(b))) {
      return in.readAllBytes();
    } catch (IOException e) {
      return b;
    }
  }
}
