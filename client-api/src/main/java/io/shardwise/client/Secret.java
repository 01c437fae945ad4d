package io.shardwise.client;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Function;

/**
 * A password or other secret that never shows itself: {@link #toString()} is {@value #MASK}, and
 * nothing else in Shardwise prints {@link #reveal()} or {@link #chars()}.
 *
 * <p>Configuration values become secrets through {@link #resolve(String)}, which understands three
 * forms:
 *
 * <table>
 *   <caption>secret references</caption>
 *   <tr><th>value</th><th>secret</th></tr>
 *   <tr><td>{@code env:NAME}</td><td>the value of the environment variable {@code NAME}</td></tr>
 *   <tr><td>{@code file:/run/secrets/redis}</td><td>the file's content as UTF-8, with trailing
 *       line breaks ({@code \n}, {@code \r\n}) removed</td></tr>
 *   <tr><td>{@code literal:text}</td><td>{@code text} as written (for a secret that itself starts
 *       with {@code env:}, {@code file:} or {@code literal:})</td></tr>
 *   <tr><td>anything else</td><td>the value as written</td></tr>
 * </table>
 *
 * <p>References are resolved once, when {@link #resolve} is called: a missing variable, an
 * unreadable file or an empty result fails at once with a message that names the reference, never
 * the value. {@link #source()} says where a secret came from ({@code env:NAME}, {@code
 * file:/path} or {@code literal}) and is safe to log.
 */
public final class Secret {

  /** What {@link #toString()} returns. */
  public static final String MASK = "******";

  /** Prefix of a reference to an environment variable. */
  public static final String ENV_PREFIX = "env:";

  /** Prefix of a reference to a file. */
  public static final String FILE_PREFIX = "file:";

  /** Prefix of a literal value that would otherwise read as a reference. */
  public static final String LITERAL_PREFIX = "literal:";

  private final char[] value;
  private final String source;

  private Secret(char[] value, String source) {
    this.value = value;
    this.source = source;
  }

  /** A secret holding {@code value} as written (no reference is resolved). */
  public static Secret of(String value) {
    Objects.requireNonNull(value, "value");
    return new Secret(value.toCharArray(), "literal");
  }

  /** A secret holding a copy of {@code value}; the caller may clear its array afterwards. */
  public static Secret of(char[] value) {
    Objects.requireNonNull(value, "value");
    return new Secret(value.clone(), "literal");
  }

  /**
   * The secret a configuration value stands for: {@code env:NAME}, {@code file:PATH}, {@code
   * literal:TEXT} or a literal (see the class description).
   *
   * @throws IllegalArgumentException if the variable is not set, the file cannot be read, or the
   *     secret is empty; the message names the reference but never a value
   */
  public static Secret resolve(String reference) {
    return resolve(reference, System::getenv);
  }

  /** {@link #resolve(String)} reading variables from {@code environment}, not the process's. */
  public static Secret resolve(String reference, Function<String, String> environment) {
    Objects.requireNonNull(reference, "reference");
    Objects.requireNonNull(environment, "environment");
    Secret secret;
    if (reference.startsWith(ENV_PREFIX)) {
      String name = reference.substring(ENV_PREFIX.length());
      if (name.isEmpty()) {
        throw new IllegalArgumentException(
            "secret reference '" + ENV_PREFIX + "' names no environment variable");
      }
      String found = environment.apply(name);
      if (found == null) {
        throw new IllegalArgumentException(
            "secret reference " + reference + ": the environment variable " + name + " is not set");
      }
      secret = new Secret(found.toCharArray(), reference);
    } else if (reference.startsWith(FILE_PREFIX)) {
      secret = new Secret(readFile(reference), reference);
    } else if (reference.startsWith(LITERAL_PREFIX)) {
      secret = new Secret(reference.substring(LITERAL_PREFIX.length()).toCharArray(), "literal");
    } else {
      secret = new Secret(reference.toCharArray(), "literal");
    }
    if (secret.value.length == 0) {
      throw new IllegalArgumentException(
          "secret "
              + (secret.source.equals("literal") ? "value" : "reference " + secret.source)
              + " is empty");
    }
    return secret;
  }

  private static char[] readFile(String reference) {
    String name = reference.substring(FILE_PREFIX.length());
    if (name.isEmpty()) {
      throw new IllegalArgumentException("secret reference '" + FILE_PREFIX + "' names no file");
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(Path.of(name));
    } catch (IOException | InvalidPathException | SecurityException e) {
      // The exception says which file and why (NoSuchFileException, AccessDeniedException): it
      // cannot hold the content, which was never read.
      throw new IllegalArgumentException(
          "secret reference " + reference + ": cannot read the file: " + e, e);
    }
    try {
      CharBuffer chars =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes));
      int end = chars.limit();
      while (end > 0 && (chars.get(end - 1) == '\n' || chars.get(end - 1) == '\r')) {
        end--;
      }
      char[] value = new char[end];
      chars.get(value, 0, end);
      Arrays.fill(chars.array(), '\0');
      return value;
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "secret reference " + reference + ": the file is not valid UTF-8");
    } finally {
      Arrays.fill(bytes, (byte) 0);
    }
  }

  /** The secret as a new array, which the caller may clear after use. */
  public char[] chars() {
    return value.clone();
  }

  /** The secret as a string, for APIs that take nothing else. Never log it. */
  public String reveal() {
    return new String(value);
  }

  /** Where the secret came from: {@code env:NAME}, {@code file:/path} or {@code literal}. */
  public String source() {
    return source;
  }

  /** The number of characters. */
  public int length() {
    return value.length;
  }

  /** Always {@value #MASK}. */
  @Override
  public String toString() {
    return MASK;
  }

  /** Equal when the values are equal (compared in constant time), wherever they came from. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Secret)) {
      return false;
    }
    byte[] mine = new String(value).getBytes(StandardCharsets.UTF_8);
    byte[] theirs = new String(((Secret) o).value).getBytes(StandardCharsets.UTF_8);
    try {
      return MessageDigest.isEqual(mine, theirs);
    } finally {
      Arrays.fill(mine, (byte) 0);
      Arrays.fill(theirs, (byte) 0);
    }
  }

  /** A constant: a hash of the value would tell something about it. */
  @Override
  public int hashCode() {
    return 0x5ec7e7;
  }
}
