package io.shardwise.spi;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class KeyRulesTest {

  /** Keys memcached's text protocol stores (measured on memcached 1.6.18). */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "a\tb", "a\u0001b", "a\u000bb", "a\u000cb", "a\u007fb", "a\u0085b", "a\u00a0b",
        "a\u2028b", "a\u3000b", "\ud83d\ude00"
      })
  void theTextProtocolAcceptsControlCharactersAndUnicodeSpaces(String key) {
    assertThatCode(() -> KeyRules.MEMCACHED.validate(key)).doesNotThrowAnyException();
    assertThatCode(() -> KeyRules.MEMCACHED_BINARY.validate(key)).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a b", "a\rb", "a\nb", "a\u0000b"})
  void theTextProtocolRefusesOnlySpaceCrLfAndNul(String key) {
    assertThatThrownBy(() -> KeyRules.MEMCACHED.validate(key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "memcached keys must not contain a space, CR, LF or NUL (text protocol); got ")
        .hasMessageContaining(" at index 1: a");
    assertThatCode(() -> KeyRules.MEMCACHED_BINARY.validate(key)).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @EnumSource(value = KeyRules.class, names = {"MEMCACHED", "MEMCACHED_BINARY"})
  void memcachedKeysAreAtMost250BytesOfUtf8(KeyRules rules) {
    assertThatCode(() -> rules.validate("k".repeat(250))).doesNotThrowAnyException();
    assertThatCode(() -> rules.validate("é".repeat(125))).doesNotThrowAnyException();
    assertThatCode(() -> rules.validate("\ud83d\ude00".repeat(62) + "kk")).doesNotThrowAnyException();
    assertThatThrownBy(() -> rules.validate("k".repeat(251)))
        .hasMessageStartingWith("memcached keys are at most 250 bytes; got 251: ");
    assertThatThrownBy(() -> rules.validate("é".repeat(125) + "k"))
        .hasMessageStartingWith("memcached keys are at most 250 bytes; got 251: ");
    assertThatThrownBy(() -> rules.validate("")).hasMessage("memcached keys must not be empty");
    assertThatThrownBy(() -> rules.validate(null)).hasMessage("keys must not be null");
  }

  @ParameterizedTest
  @EnumSource(KeyRules.class)
  void aLoneSurrogateIsRefusedNeverEncodedAsAQuestionMark(KeyRules rules) {
    assertThatThrownBy(() -> rules.validate("x\ud800"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "keys must be well-formed UTF-16 but have a lone surrogate U+D800 at index 1: x\\uD800");
    assertThatThrownBy(() -> rules.validate("\udc00x"))
        .hasMessageStartingWith("keys must be well-formed UTF-16 but have a lone surrogate U+DC00 at index 0");
    assertThatThrownBy(() -> rules.validate("a\ud800\ud800\udc00"))
        .hasMessageStartingWith("keys must be well-formed UTF-16 but have a lone surrogate U+D800 at index 1");
    assertThatCode(() -> rules.validate("x?")).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "a b\r\n", "\u0000"})
  void redisAcceptsAnyWellFormedKeyTheEmptyOneIncluded(String key) {
    assertThatCode(() -> KeyRules.REDIS.validate(key)).doesNotThrowAnyException();
  }
}
