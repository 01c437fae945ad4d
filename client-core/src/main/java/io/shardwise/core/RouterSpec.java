package io.shardwise.core;

import io.shardwise.ketama.HashRingRouter;
import io.shardwise.ketama.KetamaCompatibility;
import io.shardwise.ketama.KetamaRouter;
import io.shardwise.ketama.PeerMode;
import io.shardwise.ketama.PeerRouter;
import io.shardwise.routers.JumpRouter;
import io.shardwise.routers.MaglevRouter;
import io.shardwise.routers.ModuloRouter;
import io.shardwise.routers.MultiProbeRouter;
import io.shardwise.routers.RendezvousRouter;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Which router to build and with which parameters: what {@code shardwise.router} and its
 * sub-keys, or the CLI's {@code --router}, describe. Immutable; {@link #build(List)} makes the
 * router for a server list.
 */
public final class RouterSpec {

  /** The router algorithms. */
  public enum Type {
    /** MD5 ketama continuum, compatible with a named implementation. */
    KETAMA("ketama"),
    /** 64-bit consistent-hash ring with V points per node. */
    RING("ring"),
    /** Weighted rendezvous hashing. */
    HRW("hrw"),
    /** Jump consistent hash. */
    JUMP("jump"),
    /** Multi-probe consistent hashing. */
    MULTIPROBE("multiprobe"),
    /** Maglev lookup table. */
    MAGLEV("maglev"),
    /** hash mod n (baseline only). */
    MODULO("modulo"),
    /** A peer client's or proxy's own placement, named by a {@link PeerMode}. */
    COMPAT("compat");

    private final String id;

    Type(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    /** The type with this name, ignoring case. */
    public static Type of(String name) {
      String key = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
      for (Type type : values()) {
        if (type.id.equals(key)) {
          return type;
        }
      }
      throw new IllegalArgumentException(
          "unknown router '" + name + "'; expected one of ketama, ring, hrw, jump, multiprobe, maglev, modulo, compat");
    }
  }

  /** The compat mode when none is given: twemproxy's defaults ({@code hash: fnv1a_64}, ketama). */
  public static final PeerMode DEFAULT_COMPAT_MODE = PeerMode.of("twemproxy:fnv1a_64:ketama");

  /** The default router: ketama in libketama mode. */
  public static final RouterSpec DEFAULT = new RouterSpec(Type.KETAMA, "libketama",
      HashRingRouter.DEFAULT_POINTS_PER_NODE, MultiProbeRouter.DEFAULT_PROBES, MaglevRouter.DEFAULT_TABLE_SIZE,
      DEFAULT_COMPAT_MODE);

  private final Type type;
  private final String ketamaCompatibility;
  private final int ringPoints;
  private final int probes;
  private final int tableSize;
  private final PeerMode compatMode;

  private RouterSpec(Type type, String ketamaCompatibility, int ringPoints, int probes, int tableSize,
      PeerMode compatMode) {
    this.type = Objects.requireNonNull(type, "type");
    this.ketamaCompatibility = checkCompatibility(ketamaCompatibility);
    if (ringPoints < 1) {
      throw new IllegalArgumentException("ring points per node must be >= 1 but was " + ringPoints);
    }
    if (probes < 1) {
      throw new IllegalArgumentException("multiprobe probes must be >= 1 but was " + probes);
    }
    if (tableSize < 2) {
      throw new IllegalArgumentException("maglev table size must be a prime >= 2 but was " + tableSize);
    }
    this.ringPoints = ringPoints;
    this.probes = probes;
    this.tableSize = tableSize;
    this.compatMode = Objects.requireNonNull(compatMode, "compatMode");
  }

  private static String checkCompatibility(String mode) {
    String m = mode == null ? "" : mode.strip().toLowerCase(Locale.ROOT);
    if (!m.equals("spymemcached-weighted")) {
      try {
        KetamaCompatibility.of(m);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "unknown ketama compatibility mode '" + mode + "'; expected one of libketama, libmemcached,"
                + " twemproxy, spymemcached, spymemcached-weighted");
      }
    }
    return m;
  }

  /** A spec of {@code type} with default parameters. */
  public static RouterSpec of(Type type) {
    return DEFAULT.withType(type);
  }

  /** A spec of the named type ({@code ketama}, {@code ring}, ...) with default parameters. */
  public static RouterSpec of(String type) {
    return of(Type.of(type));
  }

  public RouterSpec withType(Type newType) {
    return new RouterSpec(newType, ketamaCompatibility, ringPoints, probes, tableSize, compatMode);
  }

  /**
   * Ketama compatibility mode: {@code libketama}, {@code libmemcached}, {@code twemproxy}, {@code
   * spymemcached} or {@code spymemcached-weighted}.
   */
  public RouterSpec withKetamaCompatibility(String mode) {
    return new RouterSpec(type, mode, ringPoints, probes, tableSize, compatMode);
  }

  /** Points per unit of weight of the {@code ring} router (default 160). */
  public RouterSpec withRingPoints(int points) {
    return new RouterSpec(type, ketamaCompatibility, points, probes, tableSize, compatMode);
  }

  /** Probes per key of the {@code multiprobe} router (default 21). */
  public RouterSpec withProbes(int k) {
    return new RouterSpec(type, ketamaCompatibility, ringPoints, k, tableSize, compatMode);
  }

  /** Table size of the {@code maglev} router, a prime larger than the node count (default 65537). */
  public RouterSpec withTableSize(int m) {
    return new RouterSpec(type, ketamaCompatibility, ringPoints, probes, m, compatMode);
  }

  /**
   * The peer placement of the {@code compat} router, e.g. {@code twemproxy:fnv1a_64:ketama} (see
   * {@link PeerMode}).
   *
   * @throws IllegalArgumentException for an unknown mode, listing the accepted forms
   */
  public RouterSpec withCompatMode(String mode) {
    return new RouterSpec(type, ketamaCompatibility, ringPoints, probes, tableSize, PeerMode.of(mode));
  }

  public PeerMode compatMode() {
    return compatMode;
  }

  public Type type() {
    return type;
  }

  public String ketamaCompatibility() {
    return ketamaCompatibility;
  }

  public int ringPoints() {
    return ringPoints;
  }

  public int probes() {
    return probes;
  }

  public int tableSize() {
    return tableSize;
  }

  /**
   * Builds the router for {@code nodes}.
   *
   * @throws IllegalArgumentException if the nodes do not suit the router (empty or duplicate
   *     list, weights on a router without weights, a Maglev table not larger than the node count)
   */
  public Router build(List<Node> nodes) {
    switch (type) {
      case KETAMA:
        return KetamaRouter.create(nodes, ketamaCompatibility);
      case RING:
        return HashRingRouter.create(nodes, ringPoints);
      case HRW:
        return new RendezvousRouter(nodes);
      case JUMP:
        return new JumpRouter(nodes);
      case MULTIPROBE:
        return new MultiProbeRouter(nodes, probes);
      case MAGLEV:
        return new MaglevRouter(nodes, tableSize);
      case MODULO:
        return new ModuloRouter(nodes);
      case COMPAT:
        return PeerRouter.create(nodes, compatMode);
      default:
        throw new AssertionError(type);
    }
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RouterSpec)) {
      return false;
    }
    RouterSpec r = (RouterSpec) o;
    return type == r.type
        && ketamaCompatibility.equals(r.ketamaCompatibility)
        && ringPoints == r.ringPoints
        && probes == r.probes
        && tableSize == r.tableSize
        && compatMode.equals(r.compatMode);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, ketamaCompatibility, ringPoints, probes, tableSize, compatMode);
  }

  @Override
  public String toString() {
    switch (type) {
      case KETAMA:
        return "ketama(" + ketamaCompatibility + ")";
      case RING:
        return "ring(V=" + ringPoints + ")";
      case MULTIPROBE:
        return "multiprobe(K=" + probes + ")";
      case MAGLEV:
        return "maglev(M=" + tableSize + ")";
      case COMPAT:
        return "compat(" + compatMode.id() + ")";
      default:
        return type.id();
    }
  }
}
