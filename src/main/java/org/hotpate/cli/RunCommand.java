package org.hotpate.cli;

import java.io.PrintStream;

/** Placeholder: replaced by the issue that builds {@code ./hotpate run}. */
public final class RunCommand implements Command {
    @Override
    public String name() {
        return "run";
    }

    @Override
    public String summary() {
        return "(not built yet)";
    }

    @Override
    public String help() {
        return "./hotpate run: not built yet\n";
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        err.println("hotpate run: not built yet");
        return 1;
    }
}
