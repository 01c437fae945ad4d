package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.memcached.ErrorTolerantAsciiOperationFactory.UnparseableReply;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.spy.memcached.ops.Mutator;
import net.spy.memcached.ops.Operation;
import net.spy.memcached.ops.OperationCallback;
import net.spy.memcached.ops.OperationState;
import net.spy.memcached.ops.OperationStatus;
import net.spy.memcached.ops.StatusCode;
import org.junit.jupiter.api.Test;

/**
 * The text operations' reply handling without a server: replies are fed to an operation as the
 * I/O thread would, in one buffer or cut anywhere, and what its callback receives, what is left in
 * the buffer for the next operation, and whether anything is thrown, are checked.
 */
class ErrorTolerantAsciiOperationFactoryTest {

  private final ErrorTolerantAsciiOperationFactory factory =
      new ErrorTolerantAsciiOperationFactory();

  /** What an operation's callback received. */
  private static final class Recorded implements OperationCallback {
    final List<OperationStatus> statuses = new ArrayList<>();
    int completions;

    @Override
    public void receivedStatus(OperationStatus status) {
      statuses.add(status);
    }

    @Override
    public void complete() {
      completions++;
    }

    OperationStatus only() {
      assertThat(statuses).hasSize(1);
      assertThat(completions).isEqualTo(1);
      return statuses.get(0);
    }
  }

  private static Operation sent(Operation op) {
    op.initialize();
    op.writing();
    op.writeComplete();
    return op;
  }

  /** Feeds {@code reply} in one buffer; returns what is left after the operation completed. */
  private static String feed(Operation op, String reply) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(reply.getBytes(StandardCharsets.ISO_8859_1));
    op.readFromBuffer(buffer);
    assertThat(op.getState()).isEqualTo(OperationState.COMPLETE);
    return StandardCharsets.ISO_8859_1.decode(buffer).toString();
  }

  private Operation incr(Recorded callback) {
    return sent(factory.mutate(Mutator.incr, "k", 1, 0, -1, callback));
  }

  @Test
  void counterRepliesUpToTwoToThe64AreHandedOnAsTheSameBits() throws IOException {
    Random random = new Random(64);
    List<BigInteger> values = new ArrayList<>();
    for (String fixed :
        new String[] {
          "0", "1", "9223372036854775807", "9223372036854775808", "18446744073709551615"
        }) {
      values.add(new BigInteger(fixed));
    }
    for (int i = 0; i < 1000; i++) {
      values.add(new BigInteger(64, random));
    }
    for (BigInteger value : values) {
      Recorded callback = new Recorded();
      assertThat(feed(incr(callback), value + "\r\n")).isEmpty();
      OperationStatus status = callback.only();
      assertThat(status.isSuccess()).isTrue();
      long bits = Long.parseLong(status.getMessage()); // what spymemcached's callback does
      assertThat(Long.toUnsignedString(bits)).isEqualTo(value.toString());
    }
  }

  @Test
  void anUnparseableCounterReplyFailsOnlyThatOperationAndLeavesTheNextReplyInTheBuffer()
      throws IOException {
    for (String bad :
        new String[] {
          "18446744073709551616",
          "99999999999999999999999",
          "-1",
          "12abc",
          "",
          " 5",
          "STORED",
          "VALUE k 0 1"
        }) {
      Recorded callback = new Recorded();
      Operation op = incr(callback);

      String left = feed(op, bad + "\r\nEND\r\n");

      assertThat(left).isEqualTo("END\r\n");
      OperationStatus status = callback.only();
      assertThat(status).isInstanceOf(UnparseableReply.class);
      assertThat(status.isSuccess()).isFalse();
      assertThat(((UnparseableReply) status).line()).isEqualTo(bad);
      assertThat(((UnparseableReply) status).expected())
          .isEqualTo(
              "an unsigned 64-bit decimal (0..18446744073709551615), NOT_FOUND or an error line");
      assertThat(op.hasErrored()).isFalse();
    }
  }

  @Test
  void aCounterReplyCutAnywhereIsReadWhole() throws IOException {
    String reply = "18446744073709551615\r\n5\r\n";
    for (int cut = 0; cut <= 22; cut++) {
      Recorded callback = new Recorded();
      Operation op = incr(callback);
      byte[] bytes = reply.getBytes(StandardCharsets.US_ASCII);
      op.readFromBuffer(ByteBuffer.wrap(bytes, 0, cut));
      if (cut < 22) {
        assertThat(op.getState()).isEqualTo(OperationState.READING);
        assertThat(callback.statuses).isEmpty();
      }
      ByteBuffer rest = ByteBuffer.wrap(bytes, cut, bytes.length - cut);
      if (op.getState() != OperationState.COMPLETE) {
        op.readFromBuffer(rest);
      }
      assertThat(op.getState()).isEqualTo(OperationState.COMPLETE);
      assertThat(rest.remaining()).isEqualTo(3);
      assertThat(callback.only().getMessage()).isEqualTo("-1");
    }
  }

  @Test
  void counterMissesAndErrorRepliesStillReachSpymemcached() throws IOException {
    Recorded missing = new Recorded();
    assertThat(feed(incr(missing), "NOT_FOUND\r\n")).isEmpty();
    assertThat(missing.only().getStatusCode()).isEqualTo(StatusCode.ERR_NOT_FOUND);

    Recorded error = new Recorded();
    Operation op = incr(error);
    String left = feed(op, "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n5\r\n");
    assertThat(left).isEqualTo("5\r\n");
    assertThat(error.only().getMessage())
        .isEqualTo("CLIENT_ERROR cannot increment or decrement non-numeric value");
    assertThat(op.hasErrored()).isTrue();
  }

  @Test
  void aVersionReplyThatIsNotVersionFailsOnlyThatOperation() throws IOException {
    Recorded fine = new Recorded();
    assertThat(feed(sent(factory.version(fine)), "VERSION 1.6.18\r\n")).isEmpty();
    assertThat(fine.only().getMessage()).isEqualTo("1.6.18");

    for (String bad : new String[] {"OK", "", "VERSION", "VALUE x 0 1"}) {
      Recorded callback = new Recorded();
      Operation op = sent(factory.version(callback));

      assertThat(feed(op, bad + "\r\nVERSION 1.6.18\r\n")).isEqualTo("VERSION 1.6.18\r\n");

      assertThat(callback.only()).isInstanceOf(UnparseableReply.class);
      assertThat(((UnparseableReply) callback.statuses.get(0)).line()).isEqualTo(bad);
    }
  }

  @Test
  void aReplyLineWithoutAnEndDropsTheConnection() throws IOException {
    Operation op = incr(new Recorded());
    byte[] endless = new byte[ErrorTolerantAsciiOperationFactory.OneLineReply.MAX_LINE_BYTES];
    Arrays.fill(endless, (byte) '7');
    op.readFromBuffer(ByteBuffer.wrap(endless));
    assertThat(op.getState()).isEqualTo(OperationState.READING);

    assertThatThrownBy(() -> op.readFromBuffer(ByteBuffer.wrap(new byte[] {'7'})))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("longer than 1024 bytes");
  }
}
