package org.hotpate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.execute(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void helpListsEveryCommand() {
        assertThat(run("--help")).isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        for (Command c : Main.commands()) {
            assertThat(text).contains(c.name());
        }
    }

    @Test
    void helpAfterASubcommand_printsTheCommandHelp() {
        assertThat(run("privacy", "plan", "--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("privacy");
    }

    @Test
    void unknownCommand_exitsTwo() {
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command 'frobnicate'");
    }
}
