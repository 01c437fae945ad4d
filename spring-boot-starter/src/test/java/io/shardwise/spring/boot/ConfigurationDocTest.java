package io.shardwise.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.shardwise.core.config.ConfigKey;
import io.shardwise.core.config.ShardwiseConfig;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} documents every key the loader and the starter know: each one has a
 * row with its default, so the documentation cannot drift from the code.
 */
class ConfigurationDocTest {

  private static final Path DOC = Path.of("..", "docs", "configuration.md");

  @Test
  void everyKeyHasARowWithItsDefault() throws Exception {
    String doc = Files.readString(DOC);
    for (ConfigKey key : ShardwiseConfig.keys()) {
      String row = "| `" + key.fullName() + "` | ";
      assertThat(doc).as(key.fullName()).contains(row);
      if (!key.defaultValue().startsWith("(")) {
        assertThat(doc).as(key.fullName()).contains(row + "`" + key.defaultValue() + "` |");
      }
    }
    List<Map<String, Object>> properties;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      properties = JsonPath.read(in, "$.properties[*]");
    }
    for (Map<String, Object> property : properties) {
      String name = (String) property.get("name");
      String documented =
          name.equals("shardwise.cache.caches")
              ? "shardwise.cache.caches.<name>."
              : "`" + name + "`";
      assertThat(doc).as(name).contains(documented);
      Object defaultValue = property.get("defaultValue");
      if (defaultValue != null && !defaultValue.toString().isEmpty()) {
        assertThat(doc).as(name).contains("| `" + name + "` | `" + defaultValue + "` |");
      }
    }
  }
}
