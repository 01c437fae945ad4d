package io.shardwise.memcached;

import io.shardwise.spi.KeyRules;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import net.spy.memcached.ops.OperationCallback;
import net.spy.memcached.ops.OperationState;
import net.spy.memcached.ops.OperationStatus;
import net.spy.memcached.protocol.BaseOperationImpl;

/**
 * memcached's meta get asking only for the time a key has left ({@code mg <key> t}, text protocol,
 * memcached 1.6 and later; https://github.com/memcached/memcached/wiki/MetaCommands): one request
 * line, one reply line. {@code HD t<seconds>} (older 1.6 releases: {@code OK ...}) for a key that
 * exists, {@code t-1} when it does not expire; {@code EN} for a miss. A server without meta
 * commands answers {@code ERROR}, which is one line too, so the stream stays in step. The line goes
 * to the callback as the status message; {@link #remaining} reads it.
 */
final class MetaTtlOperation extends BaseOperationImpl {

  /** memcached's reply to this command is a few bytes; a longer line is not a reply to it. */
  private static final int MAX_LINE_BYTES = 1024;

  private final String key;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(16);

  MetaTtlOperation(String key, OperationCallback callback) {
    this.key = key;
    setCallback(callback);
  }

  @Override
  public void initialize() {
    setBuffer(ByteBuffer.wrap(("mg " + key + " t\r\n").getBytes(StandardCharsets.UTF_8)));
  }

  @Override
  public void readFromBuffer(ByteBuffer data) throws IOException {
    while (data.hasRemaining() && getState() == OperationState.READING) {
      byte b = data.get();
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        String text = new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
        getCallback().receivedStatus(new OperationStatus(!text.startsWith("ERROR") && !text.startsWith("CLIENT_ERROR") && !text.startsWith("SERVER_ERROR"), text));
        transitionState(OperationState.COMPLETE);
        return;
      }
      if (line.size() == MAX_LINE_BYTES) {
        throw new IOException(
            "a reply line to 'mg " + KeyRules.shorten(key) + " t' is longer than " + MAX_LINE_BYTES + " bytes");
      }
      line.write(b);
    }
  }

  /** No time left to report: the key is absent ({@code EN}). */
  static final Duration ABSENT = Duration.ofNanos(-1);

  /**
   * What a reply line says: {@link Duration#ZERO} for a key that does not expire, the seconds it
   * has left (at least one), {@link #ABSENT} for a miss, null for a line that says nothing of it
   * (an error: the server has no meta commands).
   */
  static Duration remaining(String reply) {
    if (reply == null) {
      return null;
    }
    if (reply.equals("EN") || reply.startsWith("EN ")) {
      return ABSENT;
    }
    if (!reply.startsWith("HD") && !reply.startsWith("OK")) {
      return null;
    }
    for (String token : reply.split(" ")) {
      if (token.length() > 1 && token.charAt(0) == 't') {
        try {
          long seconds = Long.parseLong(token.substring(1));
          return seconds < 0 ? Duration.ZERO : Duration.ofSeconds(Math.max(1, seconds));
        } catch (NumberFormatException e) {
          return null;
        }
      }
    }
    return null;
  }

  @Override
  public byte[] getErrorMsg() {
    return new byte[0]; // errors come as the status line
  }

  @Override
  public String toString() {
    return "mg " + KeyRules.shorten(key) + " t";
  }
}
