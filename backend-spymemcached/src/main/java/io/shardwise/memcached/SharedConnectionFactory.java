package io.shardwise.memcached;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import net.spy.memcached.ConnectionObserver;
import net.spy.memcached.DefaultConnectionFactory;
import net.spy.memcached.FailureMode;
import net.spy.memcached.MemcachedConnection;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;
import net.spy.memcached.OperationFactory;
import net.spy.memcached.compat.log.Logger;
import net.spy.memcached.protocol.ascii.AsciiMemcachedNodeImpl;
import net.spy.memcached.protocol.binary.BinaryMemcachedNodeImpl;

/**
 * The spymemcached settings of one backend's {@link SharedConnection}: the options' protocol and
 * timeouts, {@link FailureMode#Cancel} (a request to a node that is down fails at once; Shardwise
 * reroutes it), a queue that never blocks the caller, listeners run on the I/O thread, and nodes
 * that wait for SASL authentication when SASL is configured.
 */
final class SharedConnectionFactory extends DefaultConnectionFactory {

  private final MemcachedOptions options;
  private final OperationFactory operations;
  private final ExecutorService callbacks;

  SharedConnectionFactory(
      MemcachedOptions options, OperationFactory operations, ExecutorService callbacks) {
    this.options = options;
    this.operations = operations;
    this.callbacks = callbacks;
  }

  MemcachedOptions options() {
    return options;
  }

  /** The shared connection, with no node yet: nodes join through {@link SharedConnection#add}. */
  @Override
  public MemcachedConnection createConnection(List<InetSocketAddress> ignored) throws IOException {
    return new SharedConnection(
        getReadBufSize(), this, List.of(), getFailureMode(), getOperationFactory());
  }

  @Override
  public NodeLocator createLocator(List<MemcachedNode> nodes) {
    return new ChosenNodeLocator();
  }

  /**
   * A node of the protocol configured; binary nodes wait for SASL authentication when it is
   * configured. Binary nodes log their chatter at DEBUG. spymemcached's text node class is final
   * and keeps its own logger: it logs at INFO each cancelled request it drops from its write queue
   * (requests that timed out before they could be written to a hung server); the requests in
   * flight on a lost connection, which it would log one warning each for, the backend cancels
   * itself (see {@code SharedConnection.queueReconnect}).
   */
  @Override
  public MemcachedNode createMemcachedNode(SocketAddress sa, SocketChannel c, int bufSize) {
    if (options.protocol() == MemcachedProtocol.TEXT) {
      return new AsciiMemcachedNodeImpl(
          sa,
          c,
          bufSize,
          createReadOperationQueue(),
          createWriteOperationQueue(),
          createOperationQueue(),
          getOpQueueMaxBlockTime(),
          getOperationTimeout(),
          getAuthWaitTime(),
          this);
    }
    return new QuietBinaryNode(
        sa,
        c,
        bufSize,
        createReadOperationQueue(),
        createWriteOperationQueue(),
        createOperationQueue(),
        getOpQueueMaxBlockTime(),
        options.sasl(),
        getOperationTimeout(),
        getAuthWaitTime(),
        this);
  }

  @Override
  public FailureMode getFailureMode() {
    return FailureMode.Cancel;
  }

  @Override
  public OperationFactory getOperationFactory() {
    return operations;
  }

  @Override
  public long getOperationTimeout() {
    return options.operationTimeout().toMillis();
  }

  /** Never block the caller when a node's queue is full: fail the request instead. */
  @Override
  public long getOpQueueMaxBlockTime() {
    return 0;
  }

  /**
   * Requests are held back while authentication is in progress (see {@code
   * SpymemcachedNodeConnection.begin}), so this only bounds the rare request that races a
   * reconnection.
   */
  @Override
  public long getAuthWaitTime() {
    return Math.min(100, options.operationTimeout().toMillis());
  }

  @Override
  public long getMaxReconnectDelay() {
    return options.maxReconnectDelay().toSeconds();
  }

  @Override
  public boolean isDaemon() {
    return options.daemonThreads();
  }

  @Override
  public ExecutorService getListenerExecutorService() {
    return callbacks;
  }

  @Override
  public boolean isDefaultExecutorService() {
    return false;
  }

  @Override
  public Collection<ConnectionObserver> getInitialObservers() {
    return List.of();
  }

  @Override
  protected String getName() {
    return "SharedConnectionFactory";
  }

  /** spymemcached's binary node, logging at DEBUG. */
  private static final class QuietBinaryNode extends BinaryMemcachedNodeImpl {
    private static final Logger LOG = new SpymemcachedDebugLogger(BinaryMemcachedNodeImpl.class);

    QuietBinaryNode(
        SocketAddress sa,
        SocketChannel c,
        int bufSize,
        java.util.concurrent.BlockingQueue<net.spy.memcached.ops.Operation> rq,
        java.util.concurrent.BlockingQueue<net.spy.memcached.ops.Operation> wq,
        java.util.concurrent.BlockingQueue<net.spy.memcached.ops.Operation> iq,
        long opQueueMaxBlockTime,
        boolean waitForAuth,
        long operationTimeout,
        long authWaitTime,
        DefaultConnectionFactory factory) {
      super(
          sa,
          c,
          bufSize,
          rq,
          wq,
          iq,
          opQueueMaxBlockTime,
          waitForAuth,
          operationTimeout,
          authWaitTime,
          factory);
    }

    @Override
    protected Logger getLogger() {
      return LOG;
    }
  }
}
