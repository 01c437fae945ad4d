package io.shardwise.core.internal.exec;

import io.shardwise.client.MultiResult;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A getMulti in flight: {@link #done} completes (never exceptionally: a node's failure is its
 * keys' error) when every node has answered, and {@link #result()} then builds the result. The
 * sync client builds it on the calling thread, so that the I/O thread that delivers the last reply
 * goes back to its socket at once.
 */
public final class PendingGetMulti<V> {

  public final CompletableFuture<Void> done;
  private final Supplier<MultiResult<V>> result;

  PendingGetMulti(CompletableFuture<Void> done, Supplier<MultiResult<V>> result) {
    this.done = done;
    this.result = result;
  }

  /** The result, in the caller's key order; only once {@link #done} has completed. */
  public MultiResult<V> result() {
    return result.get();
  }
}
