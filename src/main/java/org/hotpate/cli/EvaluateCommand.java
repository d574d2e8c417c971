package org.hotpate.cli;

import java.io.PrintStream;

/** Placeholder: replaced by the issue that builds {@code ./hotpate evaluate}. */
public final class EvaluateCommand implements Command {
    @Override
    public String name() {
        return "evaluate";
    }

    @Override
    public String summary() {
        return "(not built yet)";
    }

    @Override
    public String help() {
        return "./hotpate evaluate: not built yet\n";
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        err.println("hotpate evaluate: not built yet");
        return 1;
    }
}
