package io.shardwise.memcached;

import io.shardwise.spi.KeyRules;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.ops.DeleteOperation;
import net.spy.memcached.ops.FlushOperation;
import net.spy.memcached.ops.Mutator;
import net.spy.memcached.ops.MutatorOperation;
import net.spy.memcached.ops.Operation;
import net.spy.memcached.ops.OperationCallback;
import net.spy.memcached.ops.OperationErrorType;
import net.spy.memcached.ops.OperationException;
import net.spy.memcached.ops.OperationState;
import net.spy.memcached.ops.OperationStatus;
import net.spy.memcached.ops.StatusCode;
import net.spy.memcached.ops.StoreOperation;
import net.spy.memcached.ops.StoreType;
import net.spy.memcached.ops.TouchOperation;
import net.spy.memcached.ops.VersionOperation;
import net.spy.memcached.protocol.ascii.AsciiOperationFactory;

/**
 * The text-protocol operation factory, changed so that an error reply, or a reply that cannot be
 * parsed, does not cost the connection when the stream is known to be still in step.
 *
 * <p>In spymemcached 2.12.3 a text operation that reads {@code SERVER_ERROR ...}, {@code
 * CLIENT_ERROR ...} or {@code ERROR} records the error, completes, and then throws its {@link
 * OperationException} out of {@code readFromBuffer}. The I/O thread takes any such exception (and
 * any other exception raised while a reply is parsed) for a broken connection: it closes the
 * socket, cancels every other request in flight and reconnects after up to two seconds. One
 * oversized value or one {@code incr} of a non-numeric value would thus make a healthy server
 * unavailable. The binary protocol reports the same errors as statuses and is not affected.
 *
 * <p>Here the write operations are wrapped so that an {@code OperationException} thrown after the
 * operation completed is kept in when memcached is known to have consumed the whole request and
 * written exactly one reply line, so that the stream is still in step; the operation has already
 * reported the error to its future. That holds for every error of a command without a data block
 * ({@code incr}, {@code decr}, {@code delete}, {@code touch}, {@code flush_all}) and for {@code
 * SERVER_ERROR} replies to storage commands (memcached 1.6 swallows the data block of a value it
 * cannot store). A {@code CLIENT_ERROR} to a storage command can leave the data block unread, to be
 * parsed as commands, so it still reaches the I/O thread and causes a reconnect, as do all other
 * failures.
 *
 * <p>Replies that spymemcached's text operations fail to parse, operation by operation:
 *
 * <ul>
 *   <li>{@code incr}/{@code decr}: memcached counters are unsigned 64-bit, and spymemcached reads
 *       the reply with a signed parse (in {@code MemcachedClient}'s callback, on the I/O thread),
 *       so any value from 2^63 up threw a {@code NumberFormatException} there. {@link
 *       TolerantMutator} reads the reply line itself: a decimal up to 2^64-1 is handed on as the
 *       signed decimal of the same 64 bits (what the binary protocol returns), and a line that is
 *       neither a number, {@code NOT_FOUND} nor an error fails only its request with an {@link
 *       UnparseableReply} status.
 *   <li>{@code version}: spymemcached cuts {@code "VERSION "} off the reply without looking, so a
 *       shorter line threw a {@code StringIndexOutOfBoundsException}. {@link TolerantVersion}
 *       checks the line first.
 *   <li>{@code set}/{@code add}, {@code delete}, {@code touch}, {@code flush_all}: every line is
 *       turned into a status (an unknown one into a failed status), nothing is parsed.
 *   <li>{@code get} (also as the batched get of {@code getMulti}): the {@code VALUE <key> <flags>
 *       <bytes>} line is parsed with {@code Integer.parseInt}, so flags from 2^31 up (which the
 *       binary protocol and other clients can store) or a malformed line throw on the I/O thread.
 *       Left as it is: the reply is several lines and a data block whose length is in the line
 *       that failed, so the stream is not known to be in step, and the reconnect is the safe
 *       answer. (With assertions disabled spymemcached skips an unknown line inside a get reply.)
 * </ul>
 *
 * <p>For the two operations above whose reply is exactly one line, a reply is known to be in step
 * once its line ends: memcached answers each such command with one line, and the next line
 * belongs to the next request.
 */
final class ErrorTolerantAsciiOperationFactory extends AsciiOperationFactory {

  @Override
  public StoreOperation store(
      StoreType storeType,
      String key,
      int flags,
      int exp,
      byte[] data,
      StoreOperation.Callback callback) {
    return new TolerantStore(super.store(storeType, key, flags, exp, data, callback));
  }

  @Override
  public MutatorOperation mutate(
      Mutator type, String key, long by, long def, int exp, OperationCallback callback) {
    return new TolerantMutator(super.mutate(type, key, by, def, exp, callback));
  }

  @Override
  public DeleteOperation delete(String key, DeleteOperation.Callback callback) {
    return new TolerantDelete(super.delete(key, callback));
  }

  @Override
  public DeleteOperation delete(String key, long cas, DeleteOperation.Callback callback) {
    return new TolerantDelete(super.delete(key, cas, callback));
  }

  @Override
  public TouchOperation touch(String key, int expiration, OperationCallback callback) {
    return new TolerantTouch(super.touch(key, expiration, callback));
  }

  @Override
  public FlushOperation flush(int delay, OperationCallback callback) {
    return new TolerantFlush(super.flush(delay, callback));
  }

  @Override
  public VersionOperation version(OperationCallback callback) {
    return new TolerantVersion(super.version(callback));
  }

  /**
   * The status a request gets when its one-line reply could not be parsed: not a success, and not
   * an error the server sent.
   */
  static final class UnparseableReply extends OperationStatus {
    private final String line;
    private final String expected;

    UnparseableReply(String line, String expected) {
      super(false, line, StatusCode.ERR_INTERNAL);
      this.line = line;
      this.expected = expected;
    }

    /** The reply line, without its line end. */
    String line() {
      return line;
    }

    /** What the line should have been, e.g. {@code "an unsigned 64-bit decimal"}. */
    String expected() {
      return expected;
    }
  }

  /**
   * Forwards everything to the wrapped operation, except that a completed error reply is kept in.
   */
  abstract static class TolerantOperation<O extends Operation> implements Operation {
    final O delegate;

    TolerantOperation(O delegate) {
      this.delegate = delegate;
    }

    @Override
    public void readFromBuffer(ByteBuffer data) throws IOException {
      try {
        delegate.readFromBuffer(data);
      } catch (OperationException e) {
        if (delegate.getState() != OperationState.COMPLETE || !leavesStreamInStep(e)) {
          throw e;
        }
        // The error reply was read in full and reported to the operation's callback.
      }
    }

    /** Whether memcached has read the whole request when it answers with this error. */
    boolean leavesStreamInStep(OperationException error) {
      return true;
    }

    @Override
    public boolean isCancelled() {
      return delegate.isCancelled();
    }

    @Override
    public boolean hasErrored() {
      return delegate.hasErrored();
    }

    @Override
    public OperationException getException() {
      return delegate.getException();
    }

    @Override
    public OperationCallback getCallback() {
      return delegate.getCallback();
    }

    @Override
    public void cancel() {
      delegate.cancel();
    }

    @Override
    public OperationState getState() {
      return delegate.getState();
    }

    @Override
    public ByteBuffer getBuffer() {
      return delegate.getBuffer();
    }

    @Override
    public void writing() {
      delegate.writing();
    }

    @Override
    public void writeComplete() {
      delegate.writeComplete();
    }

    @Override
    public void initialize() {
      delegate.initialize();
    }

    @Override
    public void handleRead(ByteBuffer data) {
      delegate.handleRead(data);
    }

    @Override
    public MemcachedNode getHandlingNode() {
      return delegate.getHandlingNode();
    }

    @Override
    public void setHandlingNode(MemcachedNode node) {
      delegate.setHandlingNode(node);
    }

    @Override
    public void timeOut() {
      delegate.timeOut();
    }

    @Override
    public boolean isTimedOut() {
      return delegate.isTimedOut();
    }

    @Override
    public boolean isTimedOut(long ttlMillis) {
      return delegate.isTimedOut(ttlMillis);
    }

    @Override
    public boolean isTimedOutUnsent() {
      return delegate.isTimedOutUnsent();
    }

    @Override
    public long getWriteCompleteTimestamp() {
      return delegate.getWriteCompleteTimestamp();
    }

    @Override
    public byte[] getErrorMsg() {
      return delegate.getErrorMsg();
    }

    @Override
    public void addClone(Operation op) {
      delegate.addClone(op);
    }

    @Override
    public int getCloneCount() {
      return delegate.getCloneCount();
    }

    @Override
    public void setCloneCount(int count) {
      delegate.setCloneCount(count);
    }

    @Override
    public String toString() {
      return delegate.toString();
    }
  }

  /**
   * An operation whose reply is exactly one line: the line is read here, up to its {@code \n},
   * and checked before the wrapped operation parses it. A line that passes is handed to the wrapped
   * operation (as {@link #accept} rewrote it); any other line completes the operation here with an
   * {@link UnparseableReply}, and the connection goes on with the next reply.
   */
  abstract static class OneLineReply<O extends Operation> extends TolerantOperation<O> {
    /** memcached's reply lines to these commands are short; a longer one is not a reply to them. */
    static final int MAX_LINE_BYTES = 1024;

    private final ByteArrayOutputStream line = new ByteArrayOutputStream(32);
    private volatile boolean failedHere;

    OneLineReply(O delegate) {
      super(delegate);
    }

    /**
     * The line the wrapped operation should parse (usually {@code line} itself), or null if it
     * cannot parse it.
     */
    abstract String accept(String line);

    /** What {@link #accept} takes, for the error message. */
    abstract String expected();

    @Override
    public void readFromBuffer(ByteBuffer data) throws IOException {
      while (data.hasRemaining()) {
        byte b = data.get();
        if (b == '\n') {
          finishLine();
          return;
        }
        if (line.size() == MAX_LINE_BYTES) {
          // Without a line end in sight the next reply cannot be found: drop the connection, as
          // spymemcached does with any failure.
          throw new IOException(
              "a reply line to '"
                  + delegate
                  + "' is longer than "
                  + MAX_LINE_BYTES
                  + " bytes: "
                  + KeyRules.shorten(line.toString(StandardCharsets.ISO_8859_1)));
        }
        line.write(b);
      }
    }

    private void finishLine() throws IOException {
      byte[] bytes = line.toByteArray();
      line.reset();
      int length = bytes.length;
      if (length > 0 && bytes[length - 1] == '\r') {
        length--;
      }
      String text = new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
      String accepted = text.indexOf('\r') >= 0 ? null : accept(text);
      if (accepted != null) {
        super.readFromBuffer(
            ByteBuffer.wrap((accepted + "\r\n").getBytes(StandardCharsets.ISO_8859_1)));
        return;
      }
      failedHere = true;
      OperationCallback callback = delegate.getCallback();
      callback.receivedStatus(new UnparseableReply(text, expected()));
      callback.complete();
    }

    @Override
    public OperationState getState() {
      return failedHere ? OperationState.COMPLETE : delegate.getState();
    }
  }

  /** Whether {@code line} is one of the error lines spymemcached's text operations recognise. */
  static boolean isErrorLine(String line) {
    return line.startsWith("ERROR")
        || line.startsWith("CLIENT_ERROR")
        || line.startsWith("SERVER_ERROR");
  }

  static final class TolerantStore extends TolerantOperation<StoreOperation>
      implements StoreOperation {
    TolerantStore(StoreOperation delegate) {
      super(delegate);
    }

    @Override
    boolean leavesStreamInStep(OperationException error) {
      return error.getType() == OperationErrorType.SERVER;
    }

    @Override
    public Collection<String> getKeys() {
      return delegate.getKeys();
    }

    @Override
    public StoreType getStoreType() {
      return delegate.getStoreType();
    }

    @Override
    public int getFlags() {
      return delegate.getFlags();
    }

    @Override
    public int getExpiration() {
      return delegate.getExpiration();
    }

    @Override
    public byte[] getData() {
      return delegate.getData();
    }
  }

  /**
   * {@code incr}/{@code decr}, read as unsigned: the reply (a decimal in 0..2^64-1) is handed to
   * spymemcached as the signed decimal of the same 64 bits, so that its {@code Long} parse yields
   * them; {@code Long.toUnsignedString} gives back the server's number.
   */
  static final class TolerantMutator extends OneLineReply<MutatorOperation>
      implements MutatorOperation {
    /** 2^64-1 has 20 digits. */
    private static final int MAX_DIGITS = 20;

    TolerantMutator(MutatorOperation delegate) {
      super(delegate);
    }

    @Override
    String accept(String line) {
      if (line.equals("NOT_FOUND") || isErrorLine(line)) {
        return line;
      }
      if (line.isEmpty() || line.length() > MAX_DIGITS) {
        return null;
      }
      for (int i = 0; i < line.length(); i++) {
        char c = line.charAt(i);
        if (c < '0' || c > '9') {
          return null;
        }
      }
      try {
        return Long.toString(Long.parseUnsignedLong(line));
      } catch (NumberFormatException e) {
        return null; // 20 digits above 2^64-1
      }
    }

    @Override
    String expected() {
      return "an unsigned 64-bit decimal (0.."
          + Long.toUnsignedString(-1L)
          + "), NOT_FOUND or an error line";
    }

    @Override
    public Collection<String> getKeys() {
      return delegate.getKeys();
    }

    @Override
    public Mutator getType() {
      return delegate.getType();
    }

    @Override
    public long getBy() {
      return delegate.getBy();
    }

    @Override
    public long getDefault() {
      return delegate.getDefault();
    }

    @Override
    public int getExpiration() {
      return delegate.getExpiration();
    }
  }

  /** {@code version}: the reply must be {@code VERSION <text>} (or an error line). */
  static final class TolerantVersion extends OneLineReply<VersionOperation>
      implements VersionOperation {
    TolerantVersion(VersionOperation delegate) {
      super(delegate);
    }

    @Override
    String accept(String line) {
      return line.startsWith("VERSION ") || isErrorLine(line) ? line : null;
    }

    @Override
    String expected() {
      return "VERSION <version>";
    }
  }

  static final class TolerantDelete extends TolerantOperation<DeleteOperation>
      implements DeleteOperation {
    TolerantDelete(DeleteOperation delegate) {
      super(delegate);
    }

    @Override
    public Collection<String> getKeys() {
      return delegate.getKeys();
    }
  }

  static final class TolerantTouch extends TolerantOperation<TouchOperation>
      implements TouchOperation {
    TolerantTouch(TouchOperation delegate) {
      super(delegate);
    }

    @Override
    public Collection<String> getKeys() {
      return delegate.getKeys();
    }

    @Override
    public int getExpiration() {
      return delegate.getExpiration();
    }
  }

  static final class TolerantFlush extends TolerantOperation<FlushOperation>
      implements FlushOperation {
    TolerantFlush(FlushOperation delegate) {
      super(delegate);
    }
  }
}
