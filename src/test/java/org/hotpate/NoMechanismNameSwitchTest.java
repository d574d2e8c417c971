package org.hotpate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.junit.jupiter.api.Test;

/**
 * Issue 40: outside {@code core.mechanism} no code branches on a mechanism's name — callers ask
 * {@link MechanismRegistry} for the entry and its hooks. A source scan (a {@code switch} on strings
 * compiles to hash codes, out of ArchUnit's sight): no {@code case} label and no {@code equals}
 * naming a registered mechanism, by its constant or its spelling, outside the registry's package.
 */
class NoMechanismNameSwitchTest {
    private static final Path MAIN = Path.of("src/main/java");

    /** Names that happen to be spelled like a mechanism but name something else (file → why). */
    private static final Map<String, String> ALLOWED =
            Map.of(
                    "org/hotpate/eval/records/RecordsEvaluation.java",
                    "\"hot-pate\"/\"cold-pate\" are the records evaluation's text-generation"
                            + " methods, not mechanism.name values",
                    "org/hotpate/eval/records/RecordsReport.java",
                    "colours the records evaluation's methods hot-pate and cold-pate",
                    "org/hotpate/bench/MechanismStepBenchmark.java",
                    "a JMH @Param picks its benchmark's fixed setup");

    @Test
    void noSwitchOrEqualsOnAMechanismNameOutsideTheRegistry() throws IOException {
        List<String> found = scan(MAIN);
        assertThat(found).as("branches on a mechanism name outside core.mechanism").isEmpty();
    }

    /** The scan finds what it is meant to: a planted switch and equals are reported. */
    @Test
    void theScanSeesAPlantedSwitch(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path f = dir.resolve("org/hotpate/cli/Planted.java");
        Files.createDirectories(f.getParent());
        Files.writeString(
                f,
                "class Planted { int f(String m) { switch (m) { case MechanismRegistry.GNMAX -> {"
                        + " return 1; } case \"lnmax\" -> { return 2; } default -> { return"
                        + " m.equals(\"hot-pate\") || MechanismRegistry.TWS.equals(m) ? 3 :"
                        + " 0; } } } }\\n");
        assertThat(scan(dir)).hasSize(4);
    }

    static List<String> scan(Path root) throws IOException {
        String names =
                String.join("|", MechanismRegistry.names().stream().map(Pattern::quote).toList());
        Pattern[] patterns = {
            Pattern.compile("case\\s+[^;:>]*MechanismRegistry\\.[A-Z_]+"),
            Pattern.compile("case\\s+[^;:>]*\"(" + names + ")\""),
            Pattern.compile(
                    "\\.equals(IgnoreCase)?\\(\\s*(MechanismRegistry\\.[A-Z_]+|\"("
                            + names
                            + ")\")"),
            Pattern.compile("MechanismRegistry\\.[A-Z_]+\\.equals"),
            Pattern.compile("\"(" + names + ")\"\\.equals"),
        };
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String rel = root.relativize(f).toString().replace('\\', '/');
                if (f.startsWith(root.resolve("org/hotpate/core/mechanism"))
                        || (root.equals(MAIN) && ALLOWED.containsKey(rel))) {
                    continue;
                }
                String src = Files.readString(f);
                for (Pattern p : patterns) {
                    Matcher m = p.matcher(src);
                    while (m.find()) {
                        found.add(rel + ": " + m.group());
                    }
                }
            }
        }
        return found;
    }
}
