package io.shardwise.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks loopback ports that are free right now.
 *
 * <p>Ports come from below the kernel's ephemeral range when there is room there: a port from the
 * ephemeral range can be taken as the source port of some outgoing connection while its server is
 * killed, and would then refuse the restart on the same port. Each port is handed out once per JVM,
 * and the port is probed by binding it; the remaining race (another process binding it before the
 * server does) is handled by the callers, which retry on a bind failure.
 */
final class FreePorts {
  private static final int LOWEST = 15000;
  private static final int FALLBACK_EPHEMERAL_START = 32768;
  private static final Set<Integer> WELL_KNOWN = Set.of(11211, 6379, 6380, 16379, 22222, 26379);
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private FreePorts() {}

  static synchronized int next() {
    int ephemeralStart = ephemeralRangeStart();
    if (ephemeralStart - LOWEST >= 2000) {
      for (int attempt = 0; attempt < 200; attempt++) {
        int candidate = ThreadLocalRandom.current().nextInt(LOWEST, ephemeralStart);
        if (!WELL_KNOWN.contains(candidate)
            && !HANDED_OUT.contains(candidate)
            && canBind(candidate)) {
          HANDED_OUT.add(candidate);
          return candidate;
        }
      }
    }
    for (int attempt = 0; attempt < 200; attempt++) {
      int candidate = bindAny();
      if (!HANDED_OUT.contains(candidate)) {
        HANDED_OUT.add(candidate);
        return candidate;
      }
    }
    throw new IllegalStateException("no free loopback port found after 400 attempts");
  }

  static boolean canBind(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int bindAny() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot bind any loopback port: " + e, e);
    }
  }

  /** The first port of {@code net.ipv4.ip_local_port_range}, or 32768 if unknown. */
  static int ephemeralRangeStart() {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    try {
      String[] bounds = Files.readString(range).trim().split("\\s+");
      return Integer.parseInt(bounds[0]);
    } catch (IOException | RuntimeException e) {
      return FALLBACK_EPHEMERAL_START;
    }
  }
}
