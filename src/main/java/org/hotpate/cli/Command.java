package org.hotpate.cli;

import java.io.PrintStream;

/** One {@code ./hotpate} sub-command. */
public interface Command {
    /** The word after {@code ./hotpate}. */
    String name();

    /** One line for {@code ./hotpate --help}. */
    String summary();

    /** The full help text for {@code ./hotpate NAME --help}. */
    String help();

    /**
     * Runs the command. Throws {@link UsageException} for bad arguments or input (exit code 2);
     * returns the process exit code otherwise.
     */
    int run(String[] args, PrintStream out, PrintStream err) throws Exception;
}
