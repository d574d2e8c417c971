package org.hotpate.cli;

import java.io.PrintStream;

/** Placeholder: replaced by the issue that builds {@code ./hotpate privacy}. */
public final class PrivacyCommand implements Command {
    @Override
    public String name() {
        return "privacy";
    }

    @Override
    public String summary() {
        return "(not built yet)";
    }

    @Override
    public String help() {
        return "./hotpate privacy: not built yet\n";
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        err.println("hotpate privacy: not built yet");
        return 1;
    }
}
