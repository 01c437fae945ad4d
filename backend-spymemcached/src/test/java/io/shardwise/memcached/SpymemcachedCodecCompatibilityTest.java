package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.client.ValueCodec;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import net.spy.memcached.CachedData;
import net.spy.memcached.transcoders.SerializingTranscoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Drop-in compatibility: Shardwise's codecs write the same bytes and flags as spymemcached 2.12.3's
 * default {@link SerializingTranscoder}, and each reads what the other wrote.
 */
class SpymemcachedCodecCompatibilityTest {

  private static final SerializingTranscoder SPY = new SerializingTranscoder();

  /** A plain serializable type of the application's own. */
  record Point(int x, int y, String label) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  static String randomText(int chars, long seed) {
    Random random = new Random(seed);
    StringBuilder sb = new StringBuilder(chars);
    while (sb.length() < chars) {
      int c = random.nextInt(0xD7FF - 0x20) + 0x20;
      sb.append((char) c);
    }
    return sb.toString();
  }

  static byte[] randomBytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  static Stream<Arguments> strings() {
    return Stream.of(
        Arguments.of("ascii", "hello, world"),
        Arguments.of("empty", ""),
        Arguments.of("utf-8", "caf\u00e9 \u65e5\u672c\u8a9e \ud83d\ude00"),
        Arguments.of("json object", "{\"user\":42,\"name\":\"ada\"}"),
        Arguments.of("json array", "[1,2,3]"),
        Arguments.of("json true", "true"),
        Arguments.of("json null", "null"),
        Arguments.of("integer", "12345"),
        Arguments.of("negative integer", "-7"),
        Arguments.of("decimal", "3.14"),
        Arguments.of("not quite json", "truely"),
        Arguments.of("compressible > 16 KiB", "abcdefgh".repeat(4_000)),
        Arguments.of("json > 16 KiB, never compressed", "{\"v\":\"" + "a".repeat(20_000) + "\"}"),
        Arguments.of("random text > 16 KiB", randomText(20_000, 1)),
        Arguments.of("exactly 16 KiB", "q".repeat(16_384)),
        Arguments.of("16 KiB + 1", "q".repeat(16_385)));
  }

  static Stream<Arguments> byteArrays() {
    return Stream.of(
        Arguments.of("small", new byte[] {1, 2, 3, -1}),
        Arguments.of("empty", new byte[0]),
        Arguments.of("random > 16 KiB, incompressible", randomBytes(20_000, 2)),
        Arguments.of("zeros > 16 KiB, compressible", new byte[20_000]));
  }

  static Stream<Arguments> serializables() {
    List<String> big =
        IntStream.range(0, 5_000).mapToObj(i -> "item-" + i).collect(Collectors.toList());
    Map<String, Integer> map = new LinkedHashMap<>();
    map.put("a", 1);
    map.put("b", -2);
    return Stream.of(
        Arguments.of("record", new Point(3, -4, "p")),
        Arguments.of("list", new ArrayList<>(List.of("x", "y"))),
        Arguments.of("map", map),
        Arguments.of("list > 16 KiB, compressible", new ArrayList<>(big)));
  }

  static Stream<Arguments> everything() {
    Stream<Arguments> primitives =
        Stream.of(
            Arguments.of("long 0", 0L),
            Arguments.of("long 1", 1L),
            Arguments.of("long -1", -1L),
            Arguments.of("long -42", -42L),
            Arguments.of("long 2^40", 1L << 40),
            Arguments.of("long min", Long.MIN_VALUE),
            Arguments.of("long max", Long.MAX_VALUE),
            Arguments.of("int 0", 0),
            Arguments.of("int 255", 255),
            Arguments.of("int 256", 256),
            Arguments.of("int -1", -1),
            Arguments.of("int -100000", -100_000),
            Arguments.of("int min", Integer.MIN_VALUE),
            Arguments.of("int max", Integer.MAX_VALUE),
            Arguments.of("true", true),
            Arguments.of("false", false),
            Arguments.of("date epoch", new Date(0)),
            Arguments.of("date 2023", new Date(1_700_000_000_000L)),
            Arguments.of("date before epoch", new Date(-86_400_000L)),
            Arguments.of("byte 0", (byte) 0),
            Arguments.of("byte 127", (byte) 127),
            Arguments.of("byte -128", (byte) -128),
            Arguments.of("byte -1", (byte) -1),
            Arguments.of("float 0", 0f),
            Arguments.of("float -0", -0f),
            Arguments.of("float 1.5", 1.5f),
            Arguments.of("float -3.25", -3.25f),
            Arguments.of("float NaN", Float.NaN),
            Arguments.of("float max", Float.MAX_VALUE),
            Arguments.of("double 0", 0d),
            Arguments.of("double -0", -0d),
            Arguments.of("double pi", Math.PI),
            Arguments.of("double -1e300", -1e300),
            Arguments.of("double -infinity", Double.NEGATIVE_INFINITY));
    return Stream.of(strings(), byteArrays(), serializables(), primitives).flatMap(s -> s);
  }

  private static void assertSameStoredForm(CachedValue ours, CachedData theirs) {
    assertThat(ours.flags()).as("flags").isEqualTo(theirs.getFlags());
    assertThat(ours.bytes()).as("bytes").isEqualTo(theirs.getData());
  }

  private static CachedData asSpy(CachedValue value) {
    return new CachedData(value.flags(), value.bytes(), CachedData.MAX_SIZE);
  }

  private static CachedValue asShardwise(CachedData data) {
    return CachedValue.of(data.getData(), data.getFlags());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everything")
  void spymemcachedCodecWritesWhatSerializingTranscoderWrites(String name, Object value) {
    assertSameStoredForm(Codecs.spymemcached().encode(value), SPY.encode(value));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everything")
  void spymemcachedCodecAndSerializingTranscoderReadEachOther(String name, Object value) {
    assertThat(Codecs.spymemcached().decode(asShardwise(SPY.encode(value)))).isEqualTo(value);
    assertThat(SPY.decode(asSpy(Codecs.spymemcached().encode(value)))).isEqualTo(value);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("strings")
  void utf8CodecAgreesForStrings(String name, String value) {
    assertAgree(Codecs.utf8(), value);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("byteArrays")
  void bytesCodecAgreesForByteArrays(String name, byte[] value) {
    assertAgree(Codecs.bytes(), value);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("serializables")
  void javaCodecAgreesForSerializableObjects(String name, Object value) {
    assertAgree(Codecs.java(), value);
  }

  private static <V> void assertAgree(ValueCodec<V> codec, V value) {
    assertSameStoredForm(codec.encode(value), SPY.encode(value));
    assertThat(codec.decode(asShardwise(SPY.encode(value)))).isEqualTo(value);
    assertThat(SPY.decode(asSpy(codec.encode(value)))).isEqualTo(value);
  }

  @Test
  void theVectorsCoverCompressedAndUncompressedLargeValues() {
    int compressed = 2;
    assertThat(SPY.encode("abcdefgh".repeat(4_000)).getFlags() & compressed).isNotZero();
    assertThat(SPY.encode(new byte[20_000]).getFlags() & compressed).isNotZero();
    assertThat(SPY.encode(randomBytes(20_000, 2)).getFlags() & compressed).isZero();
    assertThat(SPY.encode("{\"v\":\"" + "a".repeat(20_000) + "\"}").getFlags() & compressed)
        .isZero();
  }
}
