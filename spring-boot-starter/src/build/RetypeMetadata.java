import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gives the {@code shardwise.*} keys their real types in the configuration metadata that Spring
 * Boot's annotation processor generated ({@code target/classes/META-INF/spring-configuration-metadata.json}).
 *
 * <p>{@code ShardwiseProperties} keeps every value as text, so that the starter's loader, not
 * Boot's binder, reads it and a bad value gets the loader's message (the same as in plain Java);
 * the processor therefore writes {@code java.lang.String} for every key, and its additional
 * metadata file cannot change a generated key's type. This program, run by the build after
 * compiling ({@code process-classes}), sets the type named in {@code metadata-types.properties}
 * and writes the default in that type's JSON form (a boolean or a number instead of a string).
 * It changes nothing else, fails if a key it names is not in the metadata, and can run again on
 * its own output.
 *
 * <p>Usage: {@code java RetypeMetadata.java TYPES METADATA}. The generated file is pretty-printed
 * with one member per line, which is what this reads.
 */
public final class RetypeMetadata {

  private static final Pattern NAME = Pattern.compile("^(\\s*)\"name\": \"([^\"]+)\",?$");
  private static final Pattern TYPE = Pattern.compile("^(\\s*)\"type\": \"([^\"]+)\"(,?)$");
  private static final Pattern DEFAULT = Pattern.compile("^(\\s*)\"defaultValue\": (.+?)(,?)$");

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: RetypeMetadata TYPES METADATA");
    }
    Properties types = new Properties();
    try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
      types.load(in);
    }
    Path metadata = Path.of(args[1]);
    List<String> lines = Files.readAllLines(metadata, StandardCharsets.UTF_8);
    List<String> out = new ArrayList<>(lines.size());
    Set<String> retyped = new HashSet<>();
    boolean inProperties = false;
    String current = null;
    for (String line : lines) {
      String trimmed = line.trim();
      if (trimmed.startsWith("\"properties\"")) {
        inProperties = true;
      } else if (trimmed.startsWith("\"groups\"") || trimmed.startsWith("\"hints\"")) {
        inProperties = false;
      }
      Matcher m;
      if (inProperties && (m = NAME.matcher(line)).matches()) {
        current = m.group(2);
      } else if (trimmed.startsWith("}")) {
        current = null;
      }
      String type = current == null ? null : types.getProperty(current);
      if (type != null && (m = TYPE.matcher(line)).matches()) {
        out.add(m.group(1) + "\"type\": \"" + type + "\"" + m.group(3));
        retyped.add(current);
      } else if (type != null && (m = DEFAULT.matcher(line)).matches()) {
        out.add(m.group(1) + "\"defaultValue\": " + json(current, type, m.group(2)) + m.group(3));
      } else {
        out.add(line);
      }
    }
    Set<String> missing = new HashSet<>(types.stringPropertyNames());
    missing.removeAll(retyped);
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "keys in " + args[0] + " that are not in " + metadata + " (renamed or removed?): " + missing);
    }
    Files.write(metadata, out, StandardCharsets.UTF_8);
  }

  /** The default {@code value} (a JSON literal) as the JSON form of {@code type}. */
  private static String json(String key, String type, String value) {
    String text = value.startsWith("\"") ? value.substring(1, value.length() - 1) : value;
    switch (type) {
      case "java.lang.Boolean":
        if (!text.equals("true") && !text.equals("false")) {
          throw new IllegalStateException(key + ": default " + value + " is not a boolean");
        }
        return text;
      case "java.lang.Integer":
        Integer.parseInt(text);
        return text;
      case "java.lang.Double":
        Double.parseDouble(text);
        return text;
      default:
        return value.startsWith("\"") ? value : "\"" + value + "\"";
    }
  }
}
