package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class RedisFailuresTest {

  private static final String SERVER = "redis 127.0.0.1:6390";
  private static final Duration TIMEOUT = Duration.ofMillis(250);

  private static Throwable translate(Throwable t) {
    return RedisFailures.translate(SERVER, "GET", t, TIMEOUT);
  }

  @Test
  void commandTimeoutIsATimeoutException() {
    RedisCommandTimeoutException lettuce = new RedisCommandTimeoutException("timed out");
    Throwable t = translate(new CompletionException(lettuce));
    assertThat(t)
        .isInstanceOf(RedisTimeoutException.class)
        .isInstanceOf(TimeoutException.class)
        .hasMessage("redis 127.0.0.1:6390: no reply to GET within 250 ms")
        .hasCause(lettuce);
    assertThat(RedisFailures.isNodeFailure(t)).isTrue();
  }

  @Test
  void aConnectionNotMadeInTimeIsSoftEvidenceAndARefusedOneIsNot() {
    RedisBackend backend = RedisBackend.create();
    try {
      Throwable initTimedOut =
          new RedisUnavailableException(
              SERVER + ": GET failed: not connected yet; connecting in the background (1 attempts so far)",
              new RedisConnectionException(
                  "unable to connect", new RedisCommandTimeoutException("Connection initialization timed out after 1 second(s)")));
      Throwable connectTimedOut =
          new RedisUnavailableException(
              SERVER + ": GET failed: not connected yet", new io.netty.channel.ConnectTimeoutException("connection timed out"));
      Throwable refused =
          new RedisUnavailableException(
              SERVER + ": GET failed: not connected yet",
              new RedisConnectionException("unable to connect", new ConnectException("Connection refused")));
      assertThat(backend.isNodeFailure(initTimedOut)).isTrue();
      assertThat(backend.isTimeout(initTimedOut)).as("initialization timed out").isTrue();
      assertThat(backend.isTimeout(connectTimedOut)).as("connect timed out").isTrue();
      assertThat(backend.isTimeout(refused)).as("refused").isFalse();
      assertThat(backend.isTimeout(translate(new RedisCommandTimeoutException("timed out")))).isTrue();
    } finally {
      backend.close();
    }
  }

  @Test
  void errorReplyKeepsTheReplyAndIsNoNodeFailure() {
    RedisCommandExecutionException lettuce =
        new RedisCommandExecutionException(
            "WRONGTYPE Operation against a key holding the wrong kind of value");
    Throwable t = translate(lettuce);
    assertThat(t)
        .isInstanceOf(RedisErrorReplyException.class)
        .hasMessage(
            "redis 127.0.0.1:6390: GET failed with error reply: WRONGTYPE Operation against a key"
                + " holding the wrong kind of value")
        .hasCause(lettuce);
    assertThat(((RedisErrorReplyException) t).errorCode()).isEqualTo("WRONGTYPE");
    assertThat(RedisFailures.isNodeFailure(t)).isFalse();

    for (String reply :
        new String[] {"OOM command not allowed", "NOAUTH Authentication required."}) {
      assertThat(translate(new RedisCommandExecutionException(reply)))
          .isInstanceOf(RedisErrorReplyException.class);
    }
  }

  @Test
  void repliesAboutTheServersStateMeanUnavailable() {
    Throwable loading =
        translate(new RedisLoadingException("LOADING Redis is loading the dataset in memory"));
    assertThat(loading)
        .isInstanceOf(RedisUnavailableException.class)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cannot serve requests now: LOADING");
    assertThat(translate(new RedisCommandExecutionException("BUSY Redis is busy running a script")))
        .isInstanceOf(RedisUnavailableException.class);
    assertThat(translate(new RedisCommandExecutionException("MASTERDOWN Link with MASTER is down")))
        .isInstanceOf(RedisUnavailableException.class);
  }

  @Test
  void connectionProblemsAreUnavailable() {
    RedisException rejected = new RedisException("Currently not connected. Commands are rejected.");
    assertThat(translate(rejected))
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageStartingWith("redis 127.0.0.1:6390: GET failed: not connected; reconnecting")
        .hasCause(rejected);
    assertThat(translate(new RedisException("Connection disconnected")))
        .hasMessageContaining("connection lost while the request was in flight");
    assertThat(translate(new RedisConnectionException("Unable to connect")))
        .isInstanceOf(RedisUnavailableException.class);
    assertThat(translate(new ConnectException("Connection refused")))
        .isInstanceOf(RedisUnavailableException.class);
    assertThat(RedisFailures.isNodeFailure(translate(rejected))).isTrue();
  }

  @Test
  void othersPassThroughUnchanged() {
    IllegalStateException bug = new IllegalStateException("bug");
    assertThat(translate(new CompletionException(bug))).isSameAs(bug);
    RedisTimeoutException already = new RedisTimeoutException("x", null);
    assertThat(translate(already)).isSameAs(already);
  }

  @Test
  void incrScriptDigestIsLowercaseHexSha1() {
    // echo -n "abc" | sha1sum
    assertThat(IncrScript.sha1Hex("abc")).isEqualTo("a9993e364706816aba3e25717850c26c9cd0d89d");
    assertThat(IncrScript.SHA1).hasSize(40).matches("[0-9a-f]+");
  }

  @Test
  void aChannelClosedUnderARequestIsNamedWithoutNettysClassName() {
    // A real closed channel: Netty fails the write with its message-less
    // StacklessClosedChannelException, as it does for a request on a Redis connection that closed.
    EmbeddedChannel channel = new EmbeddedChannel();
    channel.close();
    Throwable closed = channel.writeAndFlush("GET").cause();
    assertThat(closed).isInstanceOf(ClosedChannelException.class);
    assertThat(closed.getClass().getName()).startsWith("io.netty.");

    Throwable t = translate(new CompletionException(closed));
    assertThat(t)
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessage("redis 127.0.0.1:6390: GET failed: connection closed")
        .hasCause(closed);
    assertThat(RedisFailures.withoutMessage(new IllegalStateException()))
        .as("a type that is not the connection's keeps its name")
        .isEqualTo("IllegalStateException");
  }
}
