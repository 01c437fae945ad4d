package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisBackend#CONSOLIDATED_FLUSHES} on a channel of its own: commands written in one turn
 * of the event loop reach the socket with one flush, a lone command is flushed in the same turn,
 * and commands written while replies are read go out when the read completes.
 */
class ConsolidatedFlushesTest {

  /**
   * The socket, as far as the handlers above it can tell: it keeps what is written and counts the
   * flushes, and passes nothing on (EmbeddedChannel's own transport runs the loop's tasks on every
   * write, which would hide the consolidation).
   */
  private static final class Socket extends ChannelOutboundHandlerAdapter {
    final List<Object> written = new ArrayList<>();
    int flushes;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      written.add(msg);
      promise.setSuccess();
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
      flushes++;
    }
  }

  /**
   * The customizer applied to {@code channel}, with the {@link Socket} below it. Writes go through
   * the pipeline: EmbeddedChannel's own writeAndFlush would run the loop's tasks after each.
   */
  private static Socket consolidating(EmbeddedChannel channel) {
    RedisBackend.CONSOLIDATED_FLUSHES.afterChannelInitialized(channel);
    Socket socket = new Socket();
    channel.pipeline().addFirst(socket);
    return socket;
  }

  @Test
  void commandsWrittenInOneTurnOfTheLoopAreFlushedOnce() {
    EmbeddedChannel channel = new EmbeddedChannel();
    Socket socket = consolidating(channel);

    channel.pipeline().writeAndFlush("SET a");
    channel.pipeline().writeAndFlush("SET b");
    channel.pipeline().writeAndFlush("SET c");
    assertThat(socket.flushes).as("flushes before the loop runs its tasks").isZero();

    channel.runPendingTasks();
    assertThat(socket.flushes).isEqualTo(1);
    assertThat(socket.written).containsExactly("SET a", "SET b", "SET c");
    channel.finishAndReleaseAll();
  }

  @Test
  void aLoneCommandIsFlushedInTheSameTurn() {
    EmbeddedChannel channel = new EmbeddedChannel();
    Socket socket = consolidating(channel);

    channel.pipeline().writeAndFlush("SET a");
    channel.runPendingTasks();

    assertThat(socket.flushes).isEqualTo(1);
    assertThat(socket.written).containsExactly("SET a");
    channel.finishAndReleaseAll();
  }

  @Test
  void commandsWrittenWhileRepliesAreReadGoOutWhenTheReadCompletes() {
    EmbeddedChannel channel = new EmbeddedChannel();
    Socket socket = consolidating(channel);

    channel.pipeline().fireChannelRead("+OK");
    channel.pipeline().writeAndFlush("SET a");
    channel.pipeline().writeAndFlush("SET b");
    assertThat(socket.flushes).as("flushes while the read is in progress").isZero();

    channel.pipeline().fireChannelReadComplete();
    assertThat(socket.flushes).isEqualTo(1);
    assertThat(socket.written).containsExactly("SET a", "SET b");
    channel.finishAndReleaseAll();
  }
}
