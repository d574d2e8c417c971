package org.hotpate.eval.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.hotpate.teachers.records.RecordFiles;

/**
 * Reads public text files: the public side of the records evaluation, the lever study and {@code
 * run-texts} (PromptPATE/PATEin queries, fidelity's public model, text origin).
 */
public final class PublicTexts {
    private PublicTexts() {}

    /**
     * The first {@code max} non-empty texts of a file (JSONL(.gz) with the text in {@code field},
     * or plain lines).
     */
    public static List<String> read(Path file, String field, int max) throws Exception {
        List<String> out = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        RecordFiles.forEachLine(
                file,
                (n, bytes) -> {
                    if (out.size() >= max) {
                        return;
                    }
                    String line = new String(bytes, StandardCharsets.UTF_8);
                    String text = line;
                    if (line.startsWith("{")) {
                        try {
                            JsonNode t = json.readTree(line).get(field);
                            text = t != null && t.isTextual() ? t.asText() : null;
                        } catch (Exception e) {
                            text = line;
                        }
                    }
                    if (text != null && !text.isBlank()) {
                        out.add(text);
                    }
                });
        return out;
    }
}
