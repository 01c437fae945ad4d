package io.shardwise.spi;

import java.util.List;
import java.util.Objects;

/**
 * Configuration that cannot be used, with every problem found: one line per problem, each naming
 * the key, the value (never a secret's) and what is allowed, e.g. {@code shardwise.rejoin: 'hope'
 * is not allowed; expected one of journal, flush, keep}. The message is the lines joined by line
 * breaks.
 */
public final class InvalidSettingsException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  /**
   * @param problems one line per problem, at least one
   */
  public InvalidSettingsException(List<String> problems) {
    super(String.join("\n", check(problems)));
    this.problems = List.copyOf(problems);
  }

  private static List<String> check(List<String> problems) {
    Objects.requireNonNull(problems, "problems");
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an InvalidSettingsException needs at least one problem");
    }
    return problems;
  }

  /** The problems, one line each, in the order they were found. */
  public List<String> problems() {
    return problems;
  }
}
