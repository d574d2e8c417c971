package org.hotpate.eval.records;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.records.RecordFiles;
import org.hotpate.teachers.records.RecordValidator;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The records of one evaluation, read with the records pipeline's own {@link RecordValidator} (same
 * field names, dotted paths, size limit) and tokenized with the run's {@link Tokenizer}. Invalid
 * lines are skipped and counted by reason; a file with no valid record is an error that names the
 * first reason (a wrong {@code --user-field} or {@code --text-field} shows up here).
 *
 * @param records the valid records in file order
 * @param classes the distinct labels, sorted (empty without a label field)
 * @param rejected invalid lines by reason
 */
public record RecordsCorpus(List<Rec> records, List<String> classes, Map<String, Long> rejected) {
    /** One valid record; {@code label} indexes {@link #classes()} or is −1 (no label). */
    public record Rec(String user, String text, int[] tokens, int label) {}

    /** Reads {@code file}; with a label field, records without a label are skipped. */
    public static RecordsCorpus load(Path file, RecordFields fields, Tokenizer tokenizer)
            throws Exception {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--records " + file + ": no such file");
        }
        RecordValidator v = new RecordValidator(fields);
        List<String[]> raw = new ArrayList<>();
        Map<String, Long> rejected = new LinkedHashMap<>();
        String[] first = new String[1];
        RecordFiles.forEachLine(
                file,
                (n, bytes) -> {
                    RecordValidator.Result r = v.line(bytes);
                    String reason = r.valid() ? null : r.reason();
                    if (r.valid() && fields.labelled() && r.record().label().isEmpty()) {
                        reason = "MISSING_LABEL";
                        if (first[0] == null) {
                            first[0] =
                                    "line "
                                            + n
                                            + ": label field '"
                                            + fields.labelField()
                                            + "' is missing or not a scalar";
                        }
                    }
                    if (reason != null) {
                        rejected.merge(reason, 1L, Long::sum);
                        if (first[0] == null && !r.valid()) {
                            first[0] = "line " + n + ": " + r.reason() + ": " + r.detail();
                        }
                        return;
                    }
                    raw.add(
                            new String[] {
                                r.record().user(), r.record().text(), r.record().label()
                            });
                });
        if (raw.isEmpty()) {
            throw new IllegalArgumentException(
                    "--records "
                            + file
                            + ": no valid record"
                            + (first[0] == null
                                    ? " (the file is empty)"
                                    : "; first problem: " + first[0])
                            + " (check --user-field, --text-field"
                            + (fields.labelled() ? ", --label-field" : "")
                            + ")");
        }
        TreeSet<String> labels = new TreeSet<>();
        if (fields.labelled()) {
            for (String[] r : raw) {
                labels.add(r[2]);
            }
        }
        List<String> classes = List.copyOf(labels);
        List<Rec> out = new ArrayList<>(raw.size());
        for (String[] r : raw) {
            out.add(
                    new Rec(
                            r[0],
                            r[1],
                            tokenizer.encode(r[1]),
                            fields.labelled() ? classes.indexOf(r[2]) : -1));
        }
        return new RecordsCorpus(List.copyOf(out), classes, Map.copyOf(rejected));
    }

    public boolean labelled() {
        return !classes.isEmpty();
    }
}
