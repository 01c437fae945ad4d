package io.shardwise.simulator;

import io.shardwise.ketama.HashRingRouter;
import io.shardwise.ketama.KetamaRouter;
import io.shardwise.routers.JumpRouter;
import io.shardwise.routers.MaglevRouter;
import io.shardwise.routers.ModuloRouter;
import io.shardwise.routers.MultiProbeRouter;
import io.shardwise.routers.RendezvousRouter;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.List;

/**
 * A router of the project, with the parameters an experiment uses, and a label for tables.
 *
 * <p>Keys reach every router as a random 64-bit hash passed to {@link Router#primary(long)}. For
 * ketama that hash is the 32-bit ketama word, so only its low 32 bits count.
 */
record RouterChoice(Family family, String label, int parameter) {

  /** The algorithm. */
  enum Family {
    MODULO,
    RING,
    KETAMA,
    HRW,
    JUMP,
    MULTIPROBE,
    MAGLEV
  }

  static RouterChoice modulo() {
    return new RouterChoice(Family.MODULO, "modulo", 0);
  }

  static RouterChoice ring(int pointsPerNode) {
    return new RouterChoice(Family.RING, "ring V=" + pointsPerNode, pointsPerNode);
  }

  static RouterChoice ketama() {
    return new RouterChoice(Family.KETAMA, "ketama (libketama)", 0);
  }

  static RouterChoice hrw() {
    return new RouterChoice(Family.HRW, "HRW", 0);
  }

  static RouterChoice jump() {
    return new RouterChoice(Family.JUMP, "jump", 0);
  }

  static RouterChoice multiProbe(int probes) {
    return new RouterChoice(Family.MULTIPROBE, "multi-probe K=" + probes, probes);
  }

  static RouterChoice maglev(int tableSize) {
    return new RouterChoice(Family.MAGLEV, "Maglev M=" + tableSize, tableSize);
  }

  /** The router over {@code nodes}. */
  Router build(List<Node> nodes) {
    switch (family) {
      case MODULO:
        return new ModuloRouter(nodes);
      case RING:
        return HashRingRouter.create(nodes, parameter);
      case KETAMA:
        return KetamaRouter.create(nodes);
      case HRW:
        return new RendezvousRouter(nodes);
      case JUMP:
        return new JumpRouter(nodes);
      case MULTIPROBE:
        return new MultiProbeRouter(nodes, parameter);
      case MAGLEV:
        return new MaglevRouter(nodes, parameter);
      default:
        throw new AssertionError(family);
    }
  }

  /** Whether only the last node can leave without moving other keys (modulo, jump). */
  boolean removesLastOnly() {
    return family == Family.MODULO || family == Family.JUMP;
  }
}
