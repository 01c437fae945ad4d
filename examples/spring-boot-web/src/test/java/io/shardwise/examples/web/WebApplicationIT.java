package io.shardwise.examples.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The web example over three real memcached servers, through HTTP as a user would call it. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Timeout(120)
class WebApplicationIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    registry.add("shardwise.servers", () -> String.join(",", FLEET.addresses()));
  }

  @LocalServerPort int port;

  private final HttpClient http = HttpClient.newHttpClient();

  private String call(String method, String path) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode())
        .as(method + " " + path + ": " + response.body())
        .isEqualTo(200);
    return response.body();
  }

  private static String loadedAt(String json) {
    return json.replaceAll(".*\"loadedAt\":\"([^\"]+)\".*", "$1");
  }

  @Test
  void booksAreCachedUpdatedAndClearedOverTheFleet() throws Exception {
    String first = call("GET", "/books/7");
    String second = call("GET", "/books/7");
    assertThat(loadedAt(second)).as("served from the cache").isEqualTo(loadedAt(first));
    assertThat(second).containsPattern("\"server\":\"127\\.0\\.0\\.1:\\d+\"");

    assertThat(call("PUT", "/books/7?title=Dune")).contains("\"title\":\"Dune\"");
    assertThat(call("GET", "/books/7")).contains("\"title\":\"Dune\"");

    call("DELETE", "/books");
    assertThat(call("GET", "/books/7")).contains("\"title\":\"Book 7\"");

    String health = call("GET", "/actuator/health");
    assertThat(health).contains("\"shardwise\"").contains("\"up\":3");
  }
}
