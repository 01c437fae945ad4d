package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.SetArgs;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueListOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link BulkCommand} writes the bytes Lettuce writes for the same command. */
class BulkCommandTest {

  private static final ByteArrayCodec CODEC = ByteArrayCodec.INSTANCE;

  private static String encoded(Command<byte[], byte[], ?> command) {
    ByteBuf buf = Unpooled.buffer(4);
    try {
      command.encode(buf);
      return ByteBufUtil.hexDump(buf);
    } finally {
      buf.release();
    }
  }

  private static byte[] bytes(SplittableRandom random, int length) {
    byte[] b = new byte[length];
    random.nextBytes(b);
    return b;
  }

  @Test
  void getSetAndMgetAreWrittenAsLettuceWritesThem() {
    SplittableRandom random = new SplittableRandom(5);
    for (int length : new int[] {0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 100_000}) {
      byte[] k = bytes(random, length);
      byte[] v = bytes(random, length + random.nextInt(3));
      assertThat(encoded(new BulkCommand<>(CommandType.GET, new ValueOutput<>(CODEC), k)))
          .isEqualTo(
              encoded(
                  new Command<>(
                      CommandType.GET, new ValueOutput<>(CODEC), new CommandArgs<>(CODEC).addKey(k))));
      assertThat(encoded(new BulkCommand<>(CommandType.SET, new StatusOutput<>(CODEC), k, v)))
          .isEqualTo(
              encoded(
                  new Command<>(
                      CommandType.SET,
                      new StatusOutput<>(CODEC),
                      new CommandArgs<>(CODEC).addKey(k).addValue(v))));
      for (long px : new long[] {1, 9, 10, 1000, 86_400_000L, Long.MAX_VALUE}) {
        CommandArgs<byte[], byte[]> args = new CommandArgs<>(CODEC).addKey(k).addValue(v);
        SetArgs.Builder.px(px).build(args);
        assertThat(
                encoded(
                    new BulkCommand<>(
                        CommandType.SET,
                        new StatusOutput<>(CODEC),
                        k,
                        v,
                        new byte[] {'P', 'X'},
                        Long.toString(px).getBytes(StandardCharsets.US_ASCII))))
            .isEqualTo(encoded(new Command<>(CommandType.SET, new StatusOutput<>(CODEC), args)));
      }
    }
    for (int n : new int[] {1, 9, 10, 11, 100, 1000}) {
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        keys.add(bytes(random, random.nextInt(30)));
      }
      byte[][] k = keys.toArray(new byte[0][]);
      assertThat(encoded(new BulkCommand<>(CommandType.MGET, new ValueListOutput<>(CODEC), k)))
          .isEqualTo(
              encoded(
                  new Command<>(
                      CommandType.MGET,
                      new ValueListOutput<>(CODEC),
                      new CommandArgs<>(CODEC).addKeys(k))));
    }
  }

  @Test
  void decimalsAreWrittenWholeAtAnyPositionOfTheBuffer() {
    for (int n : new int[] {0, 7, 10, 42, 100, 65_535, 1_000_000, Integer.MAX_VALUE}) {
      ByteBuf buf = Unpooled.buffer(1); // grows
      try {
        buf.writeByte('x');
        BulkCommand.writeDecimal(buf, n);
        buf.writeByte('y');
        assertThat(buf.toString(StandardCharsets.US_ASCII)).isEqualTo("x" + n + "y");
      } finally {
        buf.release();
      }
    }
  }

  @Test
  void itsArgumentsAreThereForWhateverAsksForThem() {
    byte[] k = {'k'};
    byte[] v = {'v'};
    CommandArgs<byte[], byte[]> args =
        new BulkCommand<>(CommandType.SET, new StatusOutput<>(CODEC), k, v).getArgs();
    assertThat(args.count()).isEqualTo(2);
  }
}
