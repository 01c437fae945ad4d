package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RespReaderTest {

  private static Object parse(String wire) throws IOException {
    return RespReader.read(new ByteArrayInputStream(wire.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void simpleStringIsAString() throws IOException {
    assertThat(parse("+OK\r\n")).isEqualTo("OK");
  }

  @Test
  void integerIsALong() throws IOException {
    assertThat(parse(":-42\r\n")).isEqualTo(-42L);
  }

  @Test
  void bulkStringIsBytesAndMayContainCrlf() throws IOException {
    assertThat((byte[]) parse("$4\r\na\r\nb\r\n"))
        .isEqualTo("a\r\nb".getBytes(StandardCharsets.UTF_8));
    assertThat((byte[]) parse("$0\r\n\r\n")).isEmpty();
  }

  @Test
  void nullBulkAndNullArrayAreNull() throws IOException {
    assertThat(parse("$-1\r\n")).isNull();
    assertThat(parse("*-1\r\n")).isNull();
  }

  @Test
  void nestedArraysKeepTheirElementTypes() throws IOException {
    Object reply = parse("*3\r\n$1\r\nx\r\n:7\r\n*2\r\n+a\r\n$-1\r\n");
    assertThat(reply).isInstanceOf(List.class);
    List<?> list = (List<?>) reply;
    assertThat((byte[]) list.get(0)).isEqualTo(new byte[] {'x'});
    assertThat(list.get(1)).isEqualTo(7L);
    assertThat(list.get(2)).isEqualTo(Arrays.asList("a", null));
  }

  @Test
  void topLevelErrorIsThrownWithTheServersText() {
    assertThatThrownBy(() -> parse("-ERR unknown command 'NOPE'\r\n"))
        .isInstanceOf(ErrorReplyException.class)
        .hasMessage("ERR unknown command 'NOPE'");
  }

  @Test
  void errorInsideAnArrayIsAnElement() throws IOException {
    List<?> list = (List<?>) parse("*2\r\n+OK\r\n-WRONGTYPE bad\r\n");
    assertThat(list.get(0)).isEqualTo("OK");
    assertThat(list.get(1))
        .isInstanceOfSatisfying(
            ErrorReplyException.class, e -> assertThat(e.reply()).isEqualTo("WRONGTYPE bad"));
  }

  @Test
  void truncatedReplyIsAnEofError() {
    assertThatThrownBy(() -> parse("$5\r\nab")).isInstanceOf(EOFException.class);
    assertThatThrownBy(() -> parse("+OK")).isInstanceOf(EOFException.class);
  }

  @Test
  void infoTextBecomesAFieldMapSkippingSectionHeaders() {
    byte[] info =
        "# Server\r\nredis_version:7.0.15\r\nprocess_id:12\r\n\r\n# Keyspace\r\ndb0:keys=1,expires=0\r\n"
            .getBytes(StandardCharsets.UTF_8);
    assertThat(RespClient.parseInfo(info))
        .containsEntry("redis_version", "7.0.15")
        .containsEntry("process_id", "12")
        .containsEntry("db0", "keys=1,expires=0")
        .hasSize(3);
  }
}
