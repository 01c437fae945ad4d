/**
 * The Redis backend: node connections on Lettuce.
 *
 * <p>{@link io.shardwise.redis.RedisBackend} with its {@link
 * io.shardwise.redis.RedisBackendOptions}, and the three ways a request fails: {@link
 * io.shardwise.redis.RedisUnavailableException} and {@link
 * io.shardwise.redis.RedisTimeoutException} when the node failed, {@link
 * io.shardwise.redis.RedisErrorReplyException} when the server answered with an error; and the
 * security options: {@link io.shardwise.redis.RedisAuth} (passwords, ACL users, per node) and
 * {@link io.shardwise.redis.RedisTlsOptions}. A node that refuses the client's credentials,
 * permissions or TLS settings fails requests with a {@link
 * io.shardwise.client.NodeSecurityException}, which is no node failure.
 */
package io.shardwise.redis;
