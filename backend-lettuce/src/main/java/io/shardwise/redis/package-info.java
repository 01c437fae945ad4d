/**
 * The Redis backend: node connections on Lettuce.
 *
 * <p>{@link io.shardwise.redis.RedisBackend} with its {@link
 * io.shardwise.redis.RedisBackendOptions}, and the three ways a request fails: {@link
 * io.shardwise.redis.RedisUnavailableException} and {@link
 * io.shardwise.redis.RedisTimeoutException} when the node failed, {@link
 * io.shardwise.redis.RedisErrorReplyException} when the server answered with an error.
 */
package io.shardwise.redis;
