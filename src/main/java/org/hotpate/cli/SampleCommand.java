package org.hotpate.cli;

import java.io.PrintStream;

/** Placeholder: replaced by the issue that builds {@code ./hotpate sample}. */
public final class SampleCommand implements Command {
    @Override
    public String name() {
        return "sample";
    }

    @Override
    public String summary() {
        return "(not built yet)";
    }

    @Override
    public String help() {
        return "./hotpate sample: not built yet\n";
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        err.println("hotpate sample: not built yet");
        return 1;
    }
}
