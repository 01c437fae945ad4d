package io.shardwise.cli;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A small JSON writer for the CLI's {@code --format json} (the build has no JSON library): objects,
 * arrays, strings, integers, finite doubles and null, indented by two spaces. A non-finite double
 * is written as null.
 */
final class JsonWriter {

  private final StringBuilder out = new StringBuilder();
  /** One entry per open object or array: whether it has a member yet. */
  private final Deque<boolean[]> open = new ArrayDeque<>();
  private boolean afterName;

  JsonWriter beginObject() {
    return begin('{');
  }

  JsonWriter endObject() {
    return end('}');
  }

  JsonWriter beginArray() {
    return begin('[');
  }

  JsonWriter endArray() {
    return end(']');
  }

  /** The name of the next member of the current object. */
  JsonWriter name(String name) {
    separate();
    string(name);
    out.append(": ");
    afterName = true;
    return this;
  }

  JsonWriter value(String value) {
    separate();
    if (value == null) {
      out.append("null");
    } else {
      string(value);
    }
    return this;
  }

  JsonWriter value(long value) {
    separate();
    out.append(value);
    return this;
  }

  JsonWriter value(double value) {
    separate();
    out.append(Double.isFinite(value) ? Double.toString(value) : "null");
    return this;
  }

  /** The document, ending with a newline. */
  @Override
  public String toString() {
    return out + "\n";
  }

  private JsonWriter begin(char bracket) {
    separate();
    out.append(bracket);
    open.push(new boolean[1]);
    return this;
  }

  private JsonWriter end(char bracket) {
    boolean[] hasMembers = open.pop();
    if (hasMembers[0]) {
      newline();
    }
    out.append(bracket);
    return this;
  }

  /** Writes what goes before a value or a name: nothing after a name, else a comma and a line. */
  private void separate() {
    if (afterName) {
      afterName = false;
      return;
    }
    boolean[] hasMembers = open.peek();
    if (hasMembers == null) {
      return;
    }
    if (hasMembers[0]) {
      out.append(',');
    }
    hasMembers[0] = true;
    newline();
  }

  private void newline() {
    out.append('\n');
    out.append("  ".repeat(open.size()));
  }

  private void string(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }
}
