package io.shardwise.examples.web;

import java.io.Serializable;

/** What the cache holds: any {@link Serializable} value. */
public record Book(long id, String title, String loadedAt) implements Serializable {}
