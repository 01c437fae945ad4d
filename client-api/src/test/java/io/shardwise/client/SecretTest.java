package io.shardwise.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretTest {

  private static final String VALUE = "hunter2-Zq9";

  @TempDir Path dir;

  @Test
  void toStringNeverShowsTheValue() {
    Secret secret = Secret.of(VALUE);
    assertThat(secret.toString()).isEqualTo("******");
    assertThat(String.valueOf(secret)).doesNotContain(VALUE);
    assertThat("password=" + secret).isEqualTo("password=******");
  }

  @Test
  void revealAndCharsGiveTheValueAsCopies() {
    Secret secret = Secret.of(VALUE.toCharArray());
    assertThat(secret.reveal()).isEqualTo(VALUE);
    char[] chars = secret.chars();
    assertThat(new String(chars)).isEqualTo(VALUE);
    chars[0] = 'X';
    assertThat(secret.reveal()).isEqualTo(VALUE);
    assertThat(secret.length()).isEqualTo(VALUE.length());
  }

  @Test
  void ofCopiesTheCallersArray() {
    char[] mine = VALUE.toCharArray();
    Secret secret = Secret.of(mine);
    java.util.Arrays.fill(mine, '\0');
    assertThat(secret.reveal()).isEqualTo(VALUE);
  }

  @Test
  void plainValueIsALiteral() {
    Secret secret = Secret.resolve(VALUE, Map.<String, String>of()::get);
    assertThat(secret.reveal()).isEqualTo(VALUE);
    assertThat(secret.source()).isEqualTo("literal");
  }

  @Test
  void envReferenceReadsTheVariable() {
    Secret secret = Secret.resolve("env:REDIS_PASSWORD", Map.of("REDIS_PASSWORD", VALUE)::get);
    assertThat(secret.reveal()).isEqualTo(VALUE);
    assertThat(secret.source()).isEqualTo("env:REDIS_PASSWORD");
  }

  @Test
  void envReferenceReadsTheRealEnvironmentByDefault() {
    String path = System.getenv("PATH");
    if (path != null && !path.isEmpty()) {
      assertThat(Secret.resolve("env:PATH").reveal()).isEqualTo(path);
    }
  }

  @Test
  void missingVariableFailsNamingTheReference() {
    assertThatThrownBy(() -> Secret.resolve("env:NOT_SET_ANYWHERE", name -> null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "secret reference env:NOT_SET_ANYWHERE: the environment variable NOT_SET_ANYWHERE is"
                + " not set");
    assertThatThrownBy(() -> Secret.resolve("env:", name -> VALUE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names no environment variable");
  }

  @Test
  void fileReferenceReadsTheFileAndTrimsTrailingLineBreaks() throws IOException {
    Path unix = Files.writeString(dir.resolve("unix"), VALUE + "\n");
    Path windows = Files.writeString(dir.resolve("windows"), VALUE + "\r\n");
    Path bare = Files.writeString(dir.resolve("bare"), VALUE);
    Path inner = Files.writeString(dir.resolve("inner"), " two\nlines \n\n");

    assertThat(Secret.resolve("file:" + unix).reveal()).isEqualTo(VALUE);
    assertThat(Secret.resolve("file:" + windows).reveal()).isEqualTo(VALUE);
    assertThat(Secret.resolve("file:" + bare).reveal()).isEqualTo(VALUE);
    // Only trailing line breaks go: inner ones and spaces are part of the secret.
    assertThat(Secret.resolve("file:" + inner).reveal()).isEqualTo(" two\nlines ");
    assertThat(Secret.resolve("file:" + unix).source()).isEqualTo("file:" + unix);
  }

  @Test
  void fileReferenceReadsUtf8() throws IOException {
    Path file = dir.resolve("utf8");
    Files.write(file, "pässwörd€\n".getBytes(StandardCharsets.UTF_8));
    assertThat(Secret.resolve("file:" + file).reveal()).isEqualTo("pässwörd€");
  }

  @Test
  void unreadableFileFailsNamingTheFileButNoContent() {
    Path missing = dir.resolve("no-such-file");
    assertThatThrownBy(() -> Secret.resolve("file:" + missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("secret reference file:" + missing + ": cannot read the file")
        .hasMessageContaining("NoSuchFileException");
    assertThatThrownBy(() -> Secret.resolve("file:"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names no file");
  }

  @Test
  void fileThatIsNotUtf8FailsWithoutShowingItsBytes() throws IOException {
    Path file = dir.resolve("latin1");
    Files.write(file, new byte[] {'a', (byte) 0xE9, 'b'});
    assertThatThrownBy(() -> Secret.resolve("file:" + file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("secret reference file:" + file + ": the file is not valid UTF-8");
  }

  @Test
  void emptySecretsAreRejected() throws IOException {
    Path newlineOnly = Files.writeString(dir.resolve("empty"), "\n");
    assertThatThrownBy(() -> Secret.resolve("file:" + newlineOnly))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("secret reference file:" + newlineOnly + " is empty");
    assertThatThrownBy(() -> Secret.resolve("env:EMPTY", Map.of("EMPTY", "")::get))
        .hasMessage("secret reference env:EMPTY is empty");
    assertThatThrownBy(() -> Secret.resolve("")).hasMessage("secret value is empty");
  }

  @Test
  void literalPrefixEscapesAReferenceLookalike() {
    assertThat(Secret.resolve("literal:env:HOME").reveal()).isEqualTo("env:HOME");
    assertThat(Secret.resolve("literal:file:/etc/passwd").reveal()).isEqualTo("file:/etc/passwd");
    assertThat(Secret.resolve("literal:literal:x").reveal()).isEqualTo("literal:x");
    assertThat(Secret.resolve("literal:env:HOME").source()).isEqualTo("literal");
  }

  @Test
  void equalByValueWhateverTheSource() throws IOException {
    Path file = Files.writeString(dir.resolve("s"), VALUE + "\n");
    Secret fromFile = Secret.resolve("file:" + file);
    Secret literal = Secret.of(VALUE);
    assertThat(fromFile).isEqualTo(literal);
    assertThat(fromFile.hashCode()).isEqualTo(literal.hashCode());
    assertThat(literal).isNotEqualTo(Secret.of(VALUE + "x"));
    assertThat(Secret.of("a").hashCode()).isEqualTo(Secret.of("b").hashCode());
  }
}
