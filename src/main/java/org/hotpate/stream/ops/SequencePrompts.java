package org.hotpate.stream.ops;

import static org.hotpate.core.util.Preconditions.checkArgument;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The public prompts of a run: {@code generation.prompt} for every sequence, or one line of {@code
 * generation.prompts-file} (JSONL {@code {"prompt": ..., "label": ...}}) per sequence, cycling
 * (sequence j uses line j mod lines). Prompts and labels are public: they travel in every step.
 */
public record SequencePrompts(List<Prompt> prompts) implements Serializable {
    /** One prompt: its text, token ids and label ({@code ""} = none). */
    public record Prompt(String text, int[] tokens, String label) implements Serializable {}

    /** No prompt (simulated and external ensembles). */
    public static final SequencePrompts NONE =
            new SequencePrompts(List.of(new Prompt("", new int[0], "")));

    public SequencePrompts {
        checkArgument(!prompts.isEmpty(), "there must be at least one prompt");
        prompts = List.copyOf(prompts);
    }

    public Prompt forSequence(long sequenceId) {
        return prompts.get((int) Math.floorMod(sequenceId, (long) prompts.size()));
    }

    /**
     * The prompts of a run: {@code prompt} for every sequence ({@code promptsFile} empty), or the
     * lines of {@code promptsFile}, tokenized with {@code tokenizer}.
     */
    public static SequencePrompts of(String tokenizer, String prompt, String promptsFile) {
        Tokenizer t = Tokenizer.named(tokenizer);
        if (promptsFile.isEmpty()) {
            return new SequencePrompts(List.of(new Prompt(prompt, t.encode(prompt), "")));
        }
        return new SequencePrompts(readFile(Path.of(promptsFile), t));
    }

    static List<Prompt> readFile(Path file, Tokenizer t) {
        ObjectMapper json = new ObjectMapper();
        List<Prompt> out = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "generation.prompts-file " + file + " cannot be read: " + e.getMessage());
        }
        int n = 0;
        for (String line : lines) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            JsonNode o;
            try {
                o = json.readTree(line);
            } catch (IOException e) {
                o = null;
            }
            checkArgument(
                    o != null && o.isObject() && o.path("prompt").isTextual(),
                    "generation.prompts-file line "
                            + n
                            + " must be a JSON object with a string 'prompt'; got "
                            + line);
            String prompt = o.get("prompt").asText();
            JsonNode l = o.get("label");
            String label = l != null && l.isValueNode() && !l.isNull() ? l.asText() : "";
            out.add(new Prompt(prompt, t.encode(prompt), label));
        }
        checkArgument(!out.isEmpty(), "generation.prompts-file " + file + " has no prompts");
        return out;
    }
}
