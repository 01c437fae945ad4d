package io.shardwise.it;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small in-memory memcached that speaks enough of the text protocol for a Shardwise client
 * ({@code get}, {@code set}, {@code add}, {@code delete}, {@code touch}, {@code incr}, {@code
 * decr}, {@code version}) and answers chosen requests with chosen lines: what a broken server or
 * proxy might send, which a real memcached never does. Connections that open with a binary request
 * (the SASL probe of a client without SASL) are closed without an answer, as a text-only server
 * would. Loopback only.
 */
final class ScriptedMemcached implements AutoCloseable {

  private record Item(int flags, byte[] data) {}

  private final ServerSocket listener;
  private final Map<String, Item> items = new ConcurrentHashMap<>();
  /** Key of an {@code incr}/{@code decr} to the line sent back instead of the counter's value. */
  private final Map<String, String> counterReplies = new ConcurrentHashMap<>();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger textConnections = new AtomicInteger();
  private volatile String versionReply = "VERSION 1.6-scripted";
  private volatile boolean closed;

  ScriptedMemcached() throws IOException {
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "scripted-memcached-" + port());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  String address() {
    return listener.getInetAddress().getHostAddress() + ":" + port();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** {@code incr}/{@code decr} of {@code key} is answered with {@code line} from now on. */
  void answerCounter(String key, String line) {
    counterReplies.put(key, line);
  }

  /** {@code version} is answered with {@code line} from now on. */
  void answerVersion(String line) {
    versionReply = line;
  }

  /** Connections that sent a text command (binary probes are not counted). */
  int textConnections() {
    return textConnections.get();
  }

  /** The value stored under {@code key}, as text, or null. */
  String value(String key) {
    Item item = items.get(key);
    return item == null ? null : new String(item.data(), StandardCharsets.UTF_8);
  }

  private void accept() {
    while (!closed) {
      try {
        Socket socket = listener.accept();
        open.add(socket);
        Thread serving = new Thread(() -> serve(socket), "scripted-memcached-connection");
        serving.setDaemon(true);
        serving.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      OutputStream out = new BufferedOutputStream(socket.getOutputStream());
      in.mark(1);
      if (in.read() == 0x80) {
        return; // a binary request: not understood here
      }
      in.reset();
      textConnections.incrementAndGet();
      String line;
      while ((line = readLine(in)) != null) {
        answer(line, in, out);
        if (in.available() == 0) {
          out.flush();
        }
      }
    } catch (IOException e) {
      // the client went away
    } finally {
      open.remove(socket);
    }
  }

  private void answer(String line, InputStream in, OutputStream out) throws IOException {
    String[] words = line.split(" ");
    switch (words[0]) {
      case "get", "gets" -> {
        for (int i = 1; i < words.length; i++) {
          Item item = items.get(words[i]);
          if (item != null) {
            write(out, "VALUE " + words[i] + " " + item.flags() + " " + item.data().length);
            out.write(item.data());
            write(out, "");
          }
        }
        write(out, "END");
      }
      case "set", "add" -> {
        byte[] data = in.readNBytes(Integer.parseInt(words[4]));
        readLine(in);
        Item item = new Item(Integer.parseInt(words[2]), data);
        if (words[0].equals("set")) {
          items.put(words[1], item);
          write(out, "STORED");
        } else {
          write(out, items.putIfAbsent(words[1], item) == null ? "STORED" : "NOT_STORED");
        }
      }
      case "delete" -> write(out, items.remove(words[1]) != null ? "DELETED" : "NOT_FOUND");
      case "touch" -> write(out, items.containsKey(words[1]) ? "TOUCHED" : "NOT_FOUND");
      case "incr", "decr" -> write(out, count(words[0].equals("incr"), words[1], words[2]));
      case "version" -> write(out, versionReply);
      default -> write(out, "ERROR");
    }
  }

  private String count(boolean up, String key, String by) {
    String scripted = counterReplies.get(key);
    if (scripted != null) {
      return scripted;
    }
    Item item = items.get(key);
    if (item == null) {
      return "NOT_FOUND";
    }
    long value = Long.parseUnsignedLong(new String(item.data(), StandardCharsets.US_ASCII).trim());
    long delta = Long.parseUnsignedLong(by);
    long next = up ? value + delta : Long.compareUnsigned(value, delta) <= 0 ? 0 : value - delta;
    String digits = Long.toUnsignedString(next);
    items.put(key, new Item(item.flags(), digits.getBytes(StandardCharsets.US_ASCII)));
    return digits;
  }

  private static void write(OutputStream out, String line) throws IOException {
    out.write(line.getBytes(StandardCharsets.UTF_8));
    out.write('\r');
    out.write('\n');
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        return null;
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // already closed
    }
    for (Socket socket : open) {
      try {
        socket.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }
}
