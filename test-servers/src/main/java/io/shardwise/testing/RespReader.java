package io.shardwise.testing;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/** Parses one RESP2 reply. */
final class RespReader {
  private RespReader() {}

  /**
   * Reads one reply: simple string as {@code String}, integer as {@code Long}, bulk string as
   * {@code byte[]}, array as {@code List<Object>}, nulls as {@code null}. A top-level error is
   * thrown as {@link ErrorReplyException}; an error inside an array becomes an element of that
   * type, so one failed command in a {@code EXEC} does not hide the others.
   */
  static Object read(InputStream in) throws IOException {
    Object reply = readValue(in);
    if (reply instanceof ErrorReplyException error) {
      throw new ErrorReplyException(error.reply());
    }
    return reply;
  }

  private static Object readValue(InputStream in) throws IOException {
    String line = Wire.readLine(in);
    if (line.isEmpty()) {
      throw new IOException("empty RESP line");
    }
    char type = line.charAt(0);
    String rest = line.substring(1);
    switch (type) {
      case '+':
        return rest;
      case '-':
        return new ErrorReplyException(rest);
      case ':':
        return Long.parseLong(rest);
      case '$':
        {
          int length = Integer.parseInt(rest);
          return length < 0 ? null : Wire.readBlock(in, length);
        }
      case '*':
        {
          int count = Integer.parseInt(rest);
          if (count < 0) {
            return null;
          }
          List<Object> elements = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            elements.add(readValue(in));
          }
          return elements;
        }
      default:
        throw new IOException("unknown RESP type '" + type + "' in line: " + line);
    }
  }
}
