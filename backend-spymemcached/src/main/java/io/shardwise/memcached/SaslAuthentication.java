package io.shardwise.memcached;

import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.client.Secret;
import io.shardwise.routing.Node;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import net.spy.memcached.auth.AuthDescriptor;
import net.spy.memcached.ops.OperationCallback;
import net.spy.memcached.ops.OperationErrorType;
import net.spy.memcached.ops.OperationState;
import net.spy.memcached.ops.OperationStatus;
import net.spy.memcached.ops.SASLAuthOperation;
import net.spy.memcached.ops.SASLStepOperation;
import net.spy.memcached.ops.StatusCode;
import net.spy.memcached.protocol.binary.BinaryOperationFactory;
import net.spy.memcached.protocol.binary.SASLAuthOperationImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SASL PLAIN for one node through spymemcached's own support ({@link AuthDescriptor}, its
 * authentication thread and binary SASL operations), with what spymemcached 2.12.3 gets wrong on a
 * refusal put right.
 *
 * <p>Left alone, spymemcached answers a refused {@code SASL_AUTH} by throwing on its I/O thread: it
 * logs the error with a stack trace, drops the connection, reconnects and tries again, for ever, a
 * handful of log lines per round; and each request waits up to a second for the authentication
 * before it is cancelled with a warning. Here instead:
 *
 * <ul>
 *   <li>the SASL operation reports the refusal as a status, so the connection stays up and nothing
 *       is thrown on the I/O thread;
 *   <li>the authentication thread is told to start over, and this class waits before it does: 2 s,
 *       doubling up to 60 s, so a wrong password costs one attempt per minute at most;
 *   <li>the refusal is logged once at ERROR (again only if the server's answer changes), and {@link
 *       #refusal} gives each request a {@link NodeAuthenticationException} at once.
 * </ul>
 *
 * <p>The password is read from the {@link Secret} at each attempt and handed to the JDK's SASL
 * client as a {@code char[]}, which is cleared after use.
 */
final class SaslAuthentication {

  private static final Logger log = LoggerFactory.getLogger(SpymemcachedNodeConnection.class);

  static final String MECHANISM = "PLAIN";
  static final Duration FIRST_RETRY_DELAY = Duration.ofSeconds(2);
  static final Duration MAX_RETRY_DELAY = Duration.ofMinutes(1);

  /** What the authentication thread is told after a refusal, so that it starts over quietly. */
  private static final String START_OVER = "shardwise: start SASL over";

  private static final byte[] START_OVER_BYTES = START_OVER.getBytes(StandardCharsets.UTF_8);

  private final Node node;
  private final String username;
  private final Secret password;
  private final AtomicInteger attempts = new AtomicInteger();
  private volatile String refusedWith;
  /** Whether the current connection is authenticated (spymemcached's own flag is not public). */
  private volatile boolean authenticated;
  /** Completes at the first success or refusal (see {@link #firstOutcome()}). */
  private final java.util.concurrent.CompletableFuture<Void> firstOutcome =
      new java.util.concurrent.CompletableFuture<>();
  private int consecutiveRefusals; // guarded by this
  private String loggedRefusal; // guarded by this

  SaslAuthentication(Node node, String username, Secret password) {
    this.node = node;
    this.username = username;
    this.password = password;
  }

  /** What spymemcached's connection factory takes. */
  AuthDescriptor descriptor() {
    return new AuthDescriptor(new String[] {MECHANISM}, new Credentials());
  }

  /** The binary operation factory, with SASL operations that report refusals quietly. */
  BinaryOperationFactory operations() {
    return new Operations();
  }

  /** SASL attempts made so far (for tests). */
  int attempts() {
    return attempts.get();
  }

  /** Whether the last attempt was refused (and none has succeeded since). */
  boolean refused() {
    return refusedWith != null;
  }

  /** Whether the current connection has authenticated. */
  boolean authenticated() {
    return authenticated;
  }

  /** Completes when the first attempt has succeeded or been refused. */
  java.util.concurrent.CompletableFuture<Void> firstOutcome() {
    return firstOutcome;
  }

  /** The connection was lost: the next one authenticates again. */
  void connectionLost() {
    authenticated = false;
  }

  /** The failure of a request ({@code what}, e.g. {@code get 'k'}) while the server refuses us. */
  NodeAuthenticationException refusal(String what) {
    return new NodeAuthenticationException(node, what + " failed: " + describe(refusedWith), null);
  }

  private String describe(String reply) {
    String answer = reply == null ? "no answer" : reply.trim();
    if (answer.toLowerCase(java.util.Locale.ROOT).contains("unknown command")) {
      return "SASL authentication failed: the server does not offer SASL (is it started with -S?)"
          + " ("
          + answer
          + ")";
    }
    return "SASL authentication failed: the server refused user '"
        + username
        + "' with "
        + (password.source().equals("literal")
            ? "the configured password"
            : "the password from " + password.source())
        + " ("
        + answer
        + ")";
  }

  private void succeeded() {
    authenticated = true;
    refusedWith = null;
    boolean wasRefused;
    synchronized (this) {
      consecutiveRefusals = 0;
      wasRefused = loggedRefusal != null;
      loggedRefusal = null;
    }
    if (wasRefused) {
      log.info("memcached {}: SASL authentication succeeded again", node.address());
    }
    firstOutcome.complete(null);
  }

  private void refused(String reply) {
    authenticated = false;
    refusedWith = reply == null ? "" : reply;
    boolean first;
    synchronized (this) {
      consecutiveRefusals++;
      first = !refusedWith.equals(loggedRefusal);
      loggedRefusal = refusedWith;
    }
    if (first) {
      log.error(
          "memcached {}: {}; requests to this node fail with NodeAuthenticationException until"
              + " this is fixed (the node is not ejected and its keys are not sent elsewhere);"
              + " retrying every {} s at most",
          node.address(),
          describe(refusedWith),
          MAX_RETRY_DELAY.toSeconds());
    } else if (log.isDebugEnabled()) {
      log.debug("memcached {}: SASL refused again: {}", node.address(), refusedWith);
    }
    firstOutcome.complete(null);
  }

  private Duration retryDelay() {
    int refusals;
    synchronized (this) {
      refusals = Math.max(1, consecutiveRefusals);
    }
    long millis = FIRST_RETRY_DELAY.toMillis() << Math.min(refusals - 1, 10);
    return Duration.ofMillis(Math.min(millis, MAX_RETRY_DELAY.toMillis()));
  }

  /** Supplies the user name and, copied fresh for each attempt, the password. */
  private final class Credentials implements CallbackHandler {
    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
      for (Callback callback : callbacks) {
        if (callback instanceof NameCallback) {
          ((NameCallback) callback).setName(username);
        } else if (callback instanceof PasswordCallback) {
          char[] chars = password.chars();
          try {
            ((PasswordCallback) callback).setPassword(chars); // copies
          } finally {
            Arrays.fill(chars, '\0');
          }
        } else if (!(callback instanceof javax.security.sasl.RealmCallback)) {
          throw new UnsupportedCallbackException(callback);
        }
      }
    }

    @Override
    public String toString() {
      return "SASL credentials of user " + username;
    }
  }

  /** Observes the outcome of each SASL operation for the authentication thread. */
  private final class Outcome implements OperationCallback {
    private final OperationCallback thread;

    Outcome(OperationCallback thread) {
      this.thread = thread;
    }

    @Override
    public void receivedStatus(OperationStatus status) {
      if (status.isSuccess()) {
        // The thread marks the node authenticated; only then may requests be let through.
        thread.receivedStatus(status);
        if (status.getMessage().isEmpty()) {
          succeeded();
        }
      } else if (status.getStatusCode() == StatusCode.CANCELLED) {
        // The connection went away or is shutting down mid-authentication: not a refusal. Not
        // passed on either, so that the thread ends (or starts over after a reconnection) without
        // a warning that authentication failed.
      } else {
        refused(status.getMessage());
        // A "continue" status rather than a failure: the thread asks for the next step without
        // logging a warning, and saslStep below turns that into a new attempt, later.
        thread.receivedStatus(new OperationStatus(true, START_OVER, StatusCode.SUCCESS));
      }
    }

    @Override
    public void complete() {
      thread.complete();
    }
  }

  private final class Operations extends BinaryOperationFactory {
    @Override
    public SASLAuthOperation saslAuth(
        String[] mech,
        String serverName,
        Map<String, ?> props,
        CallbackHandler cbh,
        OperationCallback cb) {
      attempts.incrementAndGet();
      return new QuietSaslAuth(mech, serverName, props, cbh, new Outcome(cb));
    }

    /**
     * Called on spymemcached's authentication thread for the step after a status. PLAIN has no
     * steps: the status was a refusal (see {@link Outcome}), so wait, then start over.
     */
    @Override
    public SASLStepOperation saslStep(
        String[] mech,
        byte[] challenge,
        String serverName,
        Map<String, ?> props,
        CallbackHandler cbh,
        OperationCallback cb) {
      if (!Arrays.equals(challenge, START_OVER_BYTES)) {
        return super.saslStep(mech, challenge, serverName, props, cbh, new Outcome(cb));
      }
      try {
        TimeUnit.MILLISECONDS.sleep(retryDelay().toMillis());
      } catch (InterruptedException e) {
        // Reconnection or shutdown: the operation below is cancelled at once and the thread ends.
        Thread.currentThread().interrupt();
      }
      attempts.incrementAndGet();
      return new QuietSaslAuth(mech, serverName, props, cbh, new Outcome(cb));
    }
  }

  /**
   * {@code SASL_AUTH} whose error status is reported to its callback instead of thrown on the I/O
   * thread (which would log it, drop the connection and reconnect). memcached has consumed the
   * whole request by then, so the connection is still in step.
   */
  private static final class QuietSaslAuth extends SASLAuthOperationImpl
      implements SASLStepOperation {
    QuietSaslAuth(
        String[] mech,
        String serverName,
        Map<String, ?> props,
        CallbackHandler cbh,
        OperationCallback cb) {
      super(mech, serverName, props, cbh, cb);
    }

    @Override
    protected void handleError(OperationErrorType type, String line) {
      getCallback().receivedStatus(new OperationStatus(false, line, StatusCode.ERR_INTERNAL));
      transitionState(OperationState.COMPLETE);
    }
  }
}
