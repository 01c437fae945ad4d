package io.shardwise.spring.boot;

import java.util.List;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where the servers are, from outside the {@code shardwise.*} properties: Spring Boot's service
 * connection pattern (the interface is in the same package on Boot 3.5 and 4). A bean of this type,
 * whether the application's own or one made by a {@code ConnectionDetailsFactory}, replaces {@code
 * shardwise.backend} and {@code shardwise.servers}; every other key still comes from the
 * properties.
 */
public interface ShardwiseConnectionDetails extends ConnectionDetails {

  /** {@code memcached} or {@code redis}. */
  String backend();

  /** The servers, each in the server-list syntax ({@code host:port}, ...), in order. */
  List<String> servers();
}
