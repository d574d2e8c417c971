package org.hotpate.cli;

import java.io.PrintStream;

/** Placeholder: replaced by the issue that builds {@code ./hotpate teachers}. */
public final class TeachersCommand implements Command {
    @Override
    public String name() {
        return "teachers";
    }

    @Override
    public String summary() {
        return "(not built yet)";
    }

    @Override
    public String help() {
        return "./hotpate teachers: not built yet\n";
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        err.println("hotpate teachers: not built yet");
        return 1;
    }
}
