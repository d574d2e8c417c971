package org.hotpate.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Entry point of {@code ./hotpate}: dispatches to the sub-commands. */
public final class Main {
    /** Every sub-command, in the order {@code --help} lists them. */
    static List<Command> commands() {
        return List.of(
                new RunCommand(),
                new SampleCommand(),
                new PrivacyCommand(),
                new EvaluateCommand(),
                new TeachersCommand(),
                new ServeTeacherCommand(),
                new LedgerCommand(),
                new ClusterCommand(),
                new BenchCommand());
    }

    private Main() {}

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Runs the CLI in-process and returns the exit code (tests call this directly). */
    public static int execute(String[] args, PrintStream out, PrintStream err) {
        Map<String, Command> byName = new LinkedHashMap<>();
        for (Command c : commands()) {
            byName.put(c.name(), c);
        }
        if (args.length == 0
                || args[0].equals("--help")
                || args[0].equals("-h")
                || args[0].equals("help")) {
            out.print(usage(byName));
            return args.length == 0 ? 2 : 0;
        }
        if (args[0].equals("--version")) {
            out.println("hotpate " + version());
            return 0;
        }
        Command cmd = byName.get(args[0]);
        if (cmd == null) {
            err.println("hotpate: unknown command '" + args[0] + "'");
            err.print(usage(byName));
            return 2;
        }
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        // --help anywhere after the command (e.g. `privacy plan --help`) prints the command's help.
        if (java.util.Arrays.stream(rest).anyMatch(a -> a.equals("--help") || a.equals("-h"))) {
            out.print(cmd.help());
            return 0;
        }
        try {
            return cmd.run(rest, out, err);
        } catch (UsageException e) {
            err.println("hotpate " + cmd.name() + ": " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println("hotpate " + cmd.name() + ": failed: " + e);
            Throwable c = e.getCause();
            while (c != null) {
                err.println("  caused by: " + c);
                c = c.getCause();
            }
            if (System.getenv("HOTPATE_DEBUG") != null) {
                e.printStackTrace(err);
            } else {
                err.println("  (set HOTPATE_DEBUG=1 for the stack trace)");
            }
            return 1;
        }
    }

    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    private static String usage(Map<String, Command> byName) {
        StringBuilder sb = new StringBuilder();
        sb.append(
                "usage: ./hotpate COMMAND [OPTIONS]   (./hotpate COMMAND --help for details)\n\n");
        sb.append(
                "Hot PATE: differentially private text from teacher ensembles, on Flink and Kafka.\n\n");
        sb.append("commands:\n");
        for (Command c : byName.values()) {
            sb.append(String.format("  %-10s %s%n", c.name(), c.summary()));
        }
        return sb.toString();
    }
}
