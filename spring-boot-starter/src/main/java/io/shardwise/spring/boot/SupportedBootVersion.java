package io.shardwise.spring.boot;

/**
 * The Spring Boot versions the starter supports: 3.5.x and 4.x. Boot 3.5 and 4 are each tested with
 * a real application on real servers; on anything older the starter refuses to start rather than
 * run without its health indicator or meters.
 */
final class SupportedBootVersion {

  private SupportedBootVersion() {}

  /**
   * @param version Spring Boot's version ({@code SpringBootVersion.getVersion()}), {@code null}
   *     when the jar's manifest does not say (a repackaged or shaded application): then nothing is
   *     checked
   * @throws IllegalStateException naming the version when it is older than 3.5
   */
  static void check(String version) {
    if (version == null || version.isBlank()) {
      return;
    }
    String[] parts = version.split("[.-]");
    int major;
    int minor;
    try {
      major = Integer.parseInt(parts[0]);
      minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
    } catch (NumberFormatException e) {
      return;
    }
    if (major < 3 || (major == 3 && minor < 5)) {
      throw new IllegalStateException(
          "the Shardwise starter needs Spring Boot 3.5.x or 4.x but this application runs Spring"
              + " Boot "
              + version
              + "; upgrade Spring Boot or build the client with ShardwiseConfig yourself");
    }
  }
}
