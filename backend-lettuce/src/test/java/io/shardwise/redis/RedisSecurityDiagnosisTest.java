package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.shardwise.client.Secret;
import io.shardwise.routing.Node;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Error replies to requests, as Redis 7.0.15 words them, told apart from security failures. */
class RedisSecurityDiagnosisTest {

  private final RedisSecurityDiagnosis diagnosis =
      new RedisSecurityDiagnosis(
          Node.of("127.0.0.1", 6390),
          RedisAuth.of("keeper", Secret.of("Keeper-pass-6Hs")),
          null,
          Duration.ofSeconds(1));

  private SecurityFailure ofReply(String reply) {
    return diagnosis.ofRequestFailure(new RedisCommandExecutionException(reply));
  }

  @Test
  void noPermForACommandOrAKeyIsAPermissionFailure() {
    SecurityFailure del = ofReply("NOPERM this user has no permissions to run the 'del' command");
    assertThat(del.kind()).isEqualTo(SecurityFailure.Kind.PERMISSION);
    assertThat(del.description())
        .isEqualTo(
            "permission denied for user 'keeper' (NOPERM this user has no permissions to run the"
                + " 'del' command)");
    String key = "NOPERM this user has no permissions to access one of the keys used as arguments";
    assertThat(ofReply(key).kind()).isEqualTo(SecurityFailure.Kind.PERMISSION);
  }

  @Test
  void aclRefusalInsideAScriptIsAPermissionFailure() {
    String reply =
        "ERR The user executing the script can't run this command or subcommand script:"
            + " 9be9283860375dc0a789b44c11a2bb1dce6e480f, on @user_script:1.";
    SecurityFailure refused = ofReply(reply);
    assertThat(refused.kind()).isEqualTo(SecurityFailure.Kind.PERMISSION);
    assertThat(refused.description())
        .isEqualTo(
            "permission denied for user 'keeper' in the script that incr and decr run (ERR The user"
                + " executing the script can't run this command or subcommand); counters need the"
                + " commands of that script, see docs/security.md")
        .doesNotContain("9be9283860375dc0a789b44c11a2bb1dce6e480f")
        .doesNotContain("@user_script");
    String key =
        "ERR The user executing the script can't access at least one of the keys mentioned in the"
            + " command script: 9be9283860375dc0a789b44c11a2bb1dce6e480f, on @user_script:1.";
    assertThat(ofReply(key).kind()).isEqualTo(SecurityFailure.Kind.PERMISSION);
  }

  @Test
  void otherErrorRepliesAreNoSecurityFailure() {
    assertThat(ofReply("ERR value is not an integer or out of range")).isNull();
    assertThat(ofReply("WRONGTYPE Operation against a key holding the wrong kind of value"))
        .isNull();
    String scriptBug =
        "ERR user_script:1: Script attempted to access nonexistent global variable 'x' script:"
            + " 9be9283860375dc0a789b44c11a2bb1dce6e480f, on @user_script:1.";
    assertThat(ofReply(scriptBug)).isNull();
  }
}
