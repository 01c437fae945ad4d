package io.shardwise.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code bin/shardwise}: the command-line entry point. */
@Command(
    name = "shardwise",
    mixinStandardHelpOptions = true,
    versionProvider = ShardwiseCli.Version.class,
    description = "Client-side sharding for memcached and Redis.",
    subcommands = {
      LocateCommand.class,
      PlanCommand.class,
      DetectCommand.class,
      io.shardwise.simulator.SimulateCommand.class,
      CommandLine.HelpCommand.class
    })
public final class ShardwiseCli implements Runnable {

  @Spec CommandSpec spec;

  /** Exit code for bad input: a bad option value, a malformed server list, an unreadable file. */
  public static final int EXIT_USAGE = 2;

  public static void main(String[] args) {
    System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs the CLI with the given streams; returns the exit code. */
  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new ShardwiseCli());
    cli.setOut(out);
    cli.setErr(err);
    // "@file" is plan's syntax for a server list in a file, not picocli's argument file.
    cli.setExpandAtFiles(false);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          if (e instanceof IllegalArgumentException || e instanceof java.io.IOException
              || e instanceof java.io.UncheckedIOException) {
            commandLine.getErr().println("shardwise: " + message(e));
            return EXIT_USAGE;
          }
          throw e;
        });
    cli.setParameterExceptionHandler(
        (e, args1) -> {
          e.getCommandLine().getErr().println("shardwise: " + withoutErrorPrefix(e.getMessage()));
          return EXIT_USAGE;
        });
    return cli.execute(args);
  }

  /** Without a subcommand: the usage, on standard output. */
  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * picocli's message without the {@code Error: } some of its messages start with (those of
   * argument groups: "Error: Missing required argument(s): ..."), which would follow the {@code
   * shardwise: } prefix.
   */
  static String withoutErrorPrefix(String message) {
    if (message == null) {
      return "bad arguments";
    }
    return message.startsWith("Error: ") ? message.substring("Error: ".length()) : message;
  }

  private static String message(Exception e) {
    Throwable t = e;
    if (t instanceof java.io.UncheckedIOException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof java.nio.file.NoSuchFileException) {
      return "no such file: " + t.getMessage();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  /** Reads the version from the jar manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = ShardwiseCli.class.getPackage().getImplementationVersion();
      return new String[] {"shardwise " + (v == null ? "(development build)" : v)};
    }
  }
}
