package io.shardwise.spring.boot;

import io.shardwise.spi.InvalidSettingsException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Shows every problem of the {@code shardwise.*} properties when they stop the application. */
final class InvalidSettingsFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidSettingsException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidSettingsException cause) {
    StringBuilder description = new StringBuilder("The Shardwise properties cannot be used:\n");
    for (String problem : cause.problems()) {
      description.append("\n    ").append(problem);
    }
    return new FailureAnalysis(
        description.toString(),
        "Fix the shardwise.* properties above. Each line names the key, the value and what it"
            + " accepts; every key, with its default and description, is in the starter's"
            + " configuration metadata (META-INF/spring-configuration-metadata.json in the"
            + " shardwise-spring-boot-starter jar), which IDEs show on completion.",
        cause);
  }
}
