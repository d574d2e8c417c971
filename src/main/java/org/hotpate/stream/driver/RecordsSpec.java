package org.hotpate.stream.driver;

import org.hotpate.stream.OperatorValues;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.RecordsConfig;
import org.hotpate.stream.config.RecordsOptions;

/**
 * What a records run needs before it starts, beyond its spec (docs/records.md): the files it reads
 * exist and the prompts file parses (with the operators' {@link OperatorValues#prompts}: on the
 * driver's side, since the configuration imports no operator). Its options are declared in {@code
 * JobOptions}.
 */
public final class RecordsSpec {
    private RecordsSpec() {}

    /**
     * The files a records run reads exist and the prompts file parses (checked by {@code ./hotpate
     * run} before anything starts; not at spec parse, so a spec can be validated where its data is
     * not).
     */
    public static void checkFiles(JobConfig c) {
        requireFile("tokenizer.file", c.get(RecordsOptions.TOKENIZER_FILE));
        if (!c.ensemble().fromRecords()) {
            return;
        }
        RecordsConfig r = c.records();
        requireFile("records.file", r.file());
        requireFile("teacher.public-file", r.teacher().publicFile());
        requireFile("generation.prompts-file", r.promptsFile());
        if (!r.promptsFile().isEmpty()) {
            try {
                OperatorValues.prompts(c); // reports a bad line now, naming the file
            } catch (IllegalArgumentException e) {
                throw new JobSpec.SpecException(e.getMessage());
            }
        }
    }

    private static void requireFile(String key, String file) {
        if (!file.isEmpty() && !java.nio.file.Files.isRegularFile(java.nio.file.Path.of(file))) {
            throw new JobSpec.SpecException(key + " must be an existing file; got '" + file + "'");
        }
    }
}
