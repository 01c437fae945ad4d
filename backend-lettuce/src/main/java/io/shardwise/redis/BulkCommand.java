package io.shardwise.redis;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;

/**
 * A command whose arguments are byte strings, written straight into the output buffer: {@code
 * *<n>\r\n} and {@code $<length>\r\n<bytes>\r\n} for the name and each argument, the same bytes
 * Lettuce writes for the command built by its own API. Lettuce's way costs an argument list
 * ({@link CommandArgs}: the list, its array of ten, one object per argument) on the calling
 * thread, and a {@code String} and a {@code byte[]} for each length of 10 or more on the I/O
 * thread, which encodes it; this costs the array of arguments only. {@link #getArgs()} builds
 * Lettuce's list when something asks for it (tracing that records arguments).
 */
final class BulkCommand<T> extends Command<byte[], byte[], T> {

  private static final byte[] CRLF = {'\r', '\n'};

  private final byte[][] arguments;

  /**
   * @param arguments the arguments after the command's name, not copied: the caller must not change
   *     them afterwards
   */
  BulkCommand(CommandType type, CommandOutput<byte[], byte[], T> output, byte[]... arguments) {
    super(type, output, null);
    this.arguments = arguments;
  }

  @Override
  public void encode(ByteBuf buf) {
    buf.writeByte('*');
    writeDecimal(buf, arguments.length + 1);
    buf.writeBytes(CRLF);
    writeBulk(buf, getType().getBytes());
    for (byte[] argument : arguments) {
      writeBulk(buf, argument);
    }
  }

  private static void writeBulk(ByteBuf buf, byte[] bytes) {
    buf.writeByte('$');
    writeDecimal(buf, bytes.length);
    buf.writeBytes(CRLF);
    buf.writeBytes(bytes);
    buf.writeBytes(CRLF);
  }

  /** Writes {@code n} (>= 0) in decimal ASCII digits. */
  static void writeDecimal(ByteBuf buf, int n) {
    if (n < 10) {
      buf.writeByte('0' + n);
      return;
    }
    int digits = 1;
    for (int rest = n / 10; rest > 0; rest /= 10) {
      digits++;
    }
    buf.ensureWritable(digits);
    int at = buf.writerIndex();
    int rest = n;
    for (int i = digits - 1; i >= 0; i--) {
      buf.setByte(at + i, '0' + rest % 10);
      rest /= 10;
    }
    buf.writerIndex(at + digits);
  }

  /** Lettuce's argument list of this command, made anew: nothing on the request path asks. */
  @Override
  public CommandArgs<byte[], byte[]> getArgs() {
    CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE);
    for (byte[] argument : arguments) {
      args.add(argument);
    }
    return args;
  }
}
