package io.shardwise.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;

class CodecProposalTest {

  private static ValueSample.Value stored(CachedValue v, boolean redis) {
    return new ValueSample.Value(v.bytes(), redis ? ValueSample.NO_FLAGS : v.flags());
  }

  private static ValueSample sample(ValueSample.Value... values) {
    return new ValueSample(List.of(values), 0, false, List.of());
  }

  private static ValueSample.Value text(String s, boolean redis) {
    return new ValueSample.Value(s.getBytes(StandardCharsets.UTF_8), redis ? ValueSample.NO_FLAGS : 0);
  }

  @Test
  void rawStringsOnRedisNeedUtf8NotTheDefaultJavaCodec() {
    CodecProposal p = CodecProposal.of(true, Writer.JEDIS, sample(text("alice", true), text("{\"a\":1}", true)));
    assertThat(p.codec()).isEqualTo("utf8");
    assertThat(p.reason()).contains("fails on them with 'invalid stream header'");
  }

  @Test
  void javaSerializedValuesOnRedisKeepTheJavaCodec() {
    CodecProposal p = CodecProposal.of(true, Writer.TWEMPROXY,
        sample(stored(Codecs.java().encode(new Date(7)), true), stored(Codecs.java().encode(42L), true)));
    assertThat(p.codec()).isEqualTo("java");
  }

  @Test
  void spymemcachedTranscoderFlagsNeedTheSpymemcachedCodecWhoeverWroteThePlacement() {
    ValueSample values = sample(stored(Codecs.spymemcached().encode(new Date(7)), false),
        stored(Codecs.spymemcached().encode(42L), false), stored(Codecs.spymemcached().encode("s"), false));
    assertThat(CodecProposal.of(false, Writer.SPYMEMCACHED, values).codec()).isEqualTo("spymemcached");
    assertThat(CodecProposal.of(false, Writer.TWEMPROXY, values).codec()).isEqualTo("spymemcached");
  }

  @Test
  void textOnMemcachedIsUtf8ForOtherClientsAndSpymemcachedForJavaOnes() {
    String big = "x".repeat(40_000); // compressed by the codec: flag 2
    ValueSample values = sample(text("v1", false), stored(Codecs.utf8().encode(big), false));
    assertThat(values.values().get(1).flags()).isEqualTo(Codecs.FLAG_COMPRESSED);
    CodecProposal other = CodecProposal.of(false, Writer.LIBMEMCACHED, values);
    assertThat(other.codec()).isEqualTo("utf8");
    assertThat(other.reason()).contains("2 UTF-8 text; flags 0 (1), 2 (1)")
        .contains("spymemcached, the default for memcached, reads them as strings too");
    assertThat(CodecProposal.of(false, Writer.XMEMCACHED, values).codec()).isEqualTo("spymemcached");
  }

  @Test
  void flagsOfAnotherClientLeaveOnlyBytes() {
    // PHP's memcached extension: 4 = serialized
    CodecProposal p = CodecProposal.of(false, Writer.LIBMEMCACHED,
        sample(new ValueSample.Value("a:1:{i:0;i:1;}".getBytes(StandardCharsets.UTF_8), 4), text("v", false)));
    assertThat(p.codec()).isEqualTo("bytes");
    assertThat(p.reason()).contains("flags 0 (1), 4 (1)").contains("write a ValueCodec");
  }

  @Test
  void withoutValuesItSaysWhichCodecToCheck() {
    CodecProposal redis = CodecProposal.of(true, null, ValueSample.NONE);
    assertThat(redis.codec()).isNull();
    assertThat(redis.reason()).contains("utf8").contains("invalid stream header");
    assertThat(CodecProposal.of(false, null, ValueSample.NONE).reason()).contains("spymemcached");
  }
}
