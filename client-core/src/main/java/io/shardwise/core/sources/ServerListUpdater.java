package io.shardwise.core.sources;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands server lists from a source to a client's {@link AsyncCacheClient#updateServers}: a list
 * equal to the last one handed over is skipped; a bad list (empty, a server twice, refused by the
 * client with an {@link IllegalArgumentException}) and a source that cannot be read are logged at
 * WARN on {@code io.shardwise.topology}, once per distinct reason until a list is read again, and
 * the list in force stays. A list the client refused is not offered again until it changes; after
 * any other failure (the client could not connect, was closed) the same list is offered again at
 * the next read. Applied changes are logged at INFO.
 *
 * <p>A list is compared with the last one handed over, not with the client's current list: a
 * change made meanwhile by a direct call of {@code updateServers} stays until the source itself
 * changes.
 *
 * <p>Thread-safe; the client is asked for the lists in the order they are offered, and applies
 * them one at a time.
 */
public final class ServerListUpdater {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.topology");
  private static final int MAX_REMEMBERED_REASONS = 64;

  private final Supplier<List<Node>> inForce;
  private final Function<List<Node>, CompletableFuture<TopologyChange>> update;
  private final Set<String> warned = new LinkedHashSet<>();
  private List<Node> lastOffered;
  private List<Node> lastRefused;
  private volatile String lastProblem;
  private int warnings;

  /** Updates {@code client}. */
  public ServerListUpdater(AsyncCacheClient<?> client) {
    this(client::nodes, client::updateServers);
  }

  /**
   * @param inForce the list in force now (the client's nodes)
   * @param update moves to a list, as {@link AsyncCacheClient#updateServers}
   */
  public ServerListUpdater(
      Supplier<List<Node>> inForce,
      Function<List<Node>, CompletableFuture<TopologyChange>> update) {
    this.inForce = Objects.requireNonNull(inForce, "inForce");
    this.update = Objects.requireNonNull(update, "update");
    this.lastOffered = List.copyOf(inForce.get());
  }

  /**
   * Moves the client to {@code servers} read from {@code origin}, unless it is the list last
   * offered or last refused.
   *
   * @return completes with the change once in force, or empty when nothing was applied (the same
   *     list, or a refusal, which is logged); never fails
   */
  public synchronized CompletableFuture<Optional<TopologyChange>> offer(
      String origin, List<Node> servers) {
    List<Node> list;
    try {
      list = ServerList.validate(servers);
    } catch (IllegalArgumentException | NullPointerException e) {
      refuse(origin, e.getMessage());
      return CompletableFuture.completedFuture(Optional.empty());
    }
    if (list.equals(lastOffered) || list.equals(lastRefused)) {
      if (list.equals(lastOffered)) {
        recovered();
      }
      return CompletableFuture.completedFuture(Optional.empty());
    }
    lastOffered = list;
    lastRefused = null;
    CompletableFuture<TopologyChange> change;
    try {
      // Under the lock, so that the client is asked for the lists in the order they were offered.
      change = update.apply(list);
    } catch (RuntimeException e) {
      change = CompletableFuture.failedFuture(e);
    }
    return change.handle((done, failure) -> settle(origin, list, done, failure));
  }

  private synchronized Optional<TopologyChange> settle(
      String origin, List<Node> list, TopologyChange done, Throwable failure) {
    if (failure == null) {
      recovered();
      if (!done.isEmpty()) {
        LOG.info("server list from {} applied: {}", origin, done);
      }
      return Optional.of(done);
    }
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (list.equals(lastOffered)) {
      lastOffered = List.copyOf(inForce.get());
    }
    if (cause instanceof IllegalArgumentException) {
      lastRefused = list;
      refuse(origin, "the client refused " + list.size() + " servers: " + cause.getMessage());
    } else {
      refuse(origin, "the change to " + list.size() + " servers failed, tried again at the next"
          + " read: " + cause);
    }
    return Optional.empty();
  }

  /**
   * Reports that {@code origin} gave no usable list ({@code reason}, which names the problem); the
   * list in force stays. Logged at WARN once per distinct reason until a list is read again.
   */
  public synchronized void refuse(String origin, String reason) {
    if (reason.startsWith(origin)) { // "dns name x:1 cannot be resolved" from dns name x:1
      reason = reason.substring(origin.length()).replaceFirst("^:? ", "");
    }
    String problem = origin + ": " + reason;
    lastProblem = problem;
    if (warned.size() >= MAX_REMEMBERED_REASONS) {
      warned.clear();
    }
    if (warned.add(problem)) {
      warnings++;
      int size = inForce.get().size();
      LOG.warn(
          "server list from {} refused, the list in force ({} server{}) stays: {}",
          origin,
          size,
          size == 1 ? "" : "s",
          reason);
    }
  }

  private void recovered() {
    warned.clear();
    lastProblem = null;
  }

  /** How many WARN lines were logged: for tests. */
  synchronized int warnings() {
    return warnings;
  }

  /** The last refusal, until a list is read again: what a health check shows. */
  public Optional<String> lastProblem() {
    return Optional.ofNullable(lastProblem);
  }
}
