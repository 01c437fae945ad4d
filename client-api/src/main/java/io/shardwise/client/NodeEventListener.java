package io.shardwise.client;

/**
 * Receives node ejections, probes and readmissions. Called on the client's health thread, once
 * per transition; a listener must return quickly and must not block.
 */
@FunctionalInterface
public interface NodeEventListener {

  void onEvent(NodeEvent event);
}
