package io.shardwise.redis;

import io.shardwise.client.Secret;
import io.shardwise.spi.KeyRules;
import java.util.Objects;
import java.util.Optional;

/**
 * What a connection sends with {@code AUTH}: a password alone (the {@code default} user, as set by
 * {@code requirepass}) or an ACL user name with its password. Either part may be missing in a
 * per-node override, which then takes the missing part from the fleet's credentials.
 *
 * <p>{@link #toString()} shows the user name and where the password came from ({@link
 * Secret#source()}), never the password.
 */
public final class RedisAuth {

  private final String username;
  private final Secret password;

  private RedisAuth(String username, Secret password) {
    this.username = username;
    this.password = password;
  }

  /** {@code AUTH password}: the {@code default} user. */
  public static RedisAuth password(Secret password) {
    return new RedisAuth(null, Objects.requireNonNull(password, "password"));
  }

  /** {@code AUTH username password}: an ACL user. */
  public static RedisAuth user(String username, Secret password) {
    return new RedisAuth(
        checkUsername(Objects.requireNonNull(username, "username")),
        Objects.requireNonNull(password, "password"));
  }

  /**
   * Credentials of which either part may be null: in a per-node override, a null part is taken
   * from the fleet's credentials.
   *
   * @throws IllegalArgumentException if both are null, or the user name is empty or has spaces
   */
  public static RedisAuth of(String username, Secret password) {
    if (username == null && password == null) {
      throw new IllegalArgumentException("credentials need a user name, a password or both");
    }
    return new RedisAuth(username == null ? null : checkUsername(username), password);
  }

  /** The ACL user name; empty for the {@code default} user. */
  public Optional<String> username() {
    return Optional.ofNullable(username);
  }

  /** The password; empty only in a per-node override that keeps the fleet's password. */
  public Optional<Secret> password() {
    return Optional.ofNullable(password);
  }

  /** These credentials with each missing part taken from {@code fleet} (which may be null). */
  RedisAuth over(RedisAuth fleet) {
    if (fleet == null) {
      return this;
    }
    return new RedisAuth(
        username != null ? username : fleet.username,
        password != null ? password : fleet.password);
  }

  static String checkUsername(String username) {
    if (username.isEmpty()) {
      throw new IllegalArgumentException(
          "username must not be empty; use null for the default user");
    }
    for (int i = 0; i < username.length(); i++) {
      char c = username.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        throw new IllegalArgumentException(
            "username must not contain spaces or control characters but has "
                + String.format("U+%04X", (int) c)
                + " at index "
                + i
                + ": '"
                + KeyRules.printable(username)
                + "'");
      }
    }
    return username;
  }

  /** Describes the password for messages: {@code password from env:NAME}, never its value. */
  String describePassword() {
    if (password == null) {
      return "no password";
    }
    return password.source().equals("literal")
        ? "the configured password"
        : "the password from " + password.source();
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof RedisAuth)) {
      return false;
    }
    RedisAuth other = (RedisAuth) o;
    return Objects.equals(username, other.username) && Objects.equals(password, other.password);
  }

  @Override
  public int hashCode() {
    return Objects.hash(username, password);
  }

  @Override
  public String toString() {
    return "RedisAuth[username="
        + (username == null ? "(default)" : username)
        + ", password="
        + (password == null ? "(inherited)" : Secret.MASK + " (" + password.source() + ")")
        + "]";
  }
}
