package io.shardwise.core.sources;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Resolves a host name to its addresses; {@link #SYSTEM} is {@link InetAddress#getAllByName},
 * which goes through the JVM's address cache ({@code networkaddress.cache.ttl}) and the operating
 * system's resolver. Tests pass a fake.
 */
@FunctionalInterface
public interface AddressResolver {

  /** The JVM's resolver: A and AAAA records, or the literal itself for an IP literal. */
  AddressResolver SYSTEM = InetAddress::getAllByName;

  /**
   * Every address of {@code host}.
   *
   * @throws UnknownHostException when the name has no address or cannot be resolved now
   */
  InetAddress[] resolve(String host) throws UnknownHostException;
}
