package org.hotpate.stream.teachers;

/**
 * What a teacher kind reads from the job spec ({@code teacher.*}, {@code tokenizer}, {@code
 * records.text-field}): implemented by {@code stream.config.RecordsConfig.Teacher}, so that the
 * kinds read typed options without importing the configuration (an ArchUnit rule).
 */
public interface TeacherOptions {
    /** The run's tokenizer name for {@code Tokenizer.named}. */
    String tokenizer();

    String textField();

    int order();

    int topK();

    String publicFile();

    int publicOrder();

    double publicWeight();

    String priorFile();

    String url();

    String modelName();

    String apiKeyEnv();

    String promptTemplate();

    int maxRecords();

    int maxPromptChars();

    boolean tokenIds();

    int padTokens();

    boolean serverSeeded();

    long timeoutMs();

    int retries();

    int batch();

    int concurrency();
}
