package io.shardwise.memcached;

import java.io.IOException;
import java.nio.ByteBuffer;
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
import net.spy.memcached.ops.StoreOperation;
import net.spy.memcached.ops.StoreType;
import net.spy.memcached.ops.TouchOperation;
import net.spy.memcached.protocol.ascii.AsciiOperationFactory;

/**
 * The text-protocol operation factory, changed so that an error reply does not cost the connection.
 *
 * <p>In spymemcached 2.12.3 a text operation that reads {@code SERVER_ERROR ...}, {@code
 * CLIENT_ERROR ...} or {@code ERROR} records the error, completes, and then throws its {@link
 * OperationException} out of {@code readFromBuffer}. The I/O thread takes any such exception for a
 * broken connection: it closes the socket, cancels every other request in flight and reconnects
 * after up to two seconds. One oversized value or one {@code incr} of a non-numeric value would
 * thus make a healthy server unavailable. The binary protocol reports the same errors as statuses
 * and is not affected.
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

  static final class TolerantMutator extends TolerantOperation<MutatorOperation>
      implements MutatorOperation {
    TolerantMutator(MutatorOperation delegate) {
      super(delegate);
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
