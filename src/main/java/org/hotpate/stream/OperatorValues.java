package org.hotpate.stream;

import org.hotpate.protocol.EarlyStop;
import org.hotpate.protocol.RunShape;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobOptions;
import org.hotpate.stream.config.JobSections;
import org.hotpate.stream.config.RecordsConfig;
import org.hotpate.stream.ops.SequencePrompts;
import org.hotpate.stream.ops.SequenceText;
import org.hotpate.stream.ops.StepFactory;

/**
 * What a run's configuration gives its operators as values: the run's public shape (with its stop
 * tokens), how its tokens become text, its prompts and the steps it issues. Here, on the topology's
 * side, rather than on {@link JobConfig}: these are {@code stream.ops} values, and the
 * configuration imports no operator (issue 33, {@code CoreArchitectureTest}).
 */
public final class OperatorValues {
    private OperatorValues() {}

    /** How the run's tokens become text and when text ends a sequence. */
    static SequenceText sequenceText(JobConfig cfg) {
        return cfg.decodesText()
                ? new SequenceText(cfg.records().tokenizer(), cfg.records().stop())
                : SequenceText.NUMBERS;
    }

    /** The run's public prompts (NONE unless its tokens are text). */
    public static SequencePrompts prompts(JobConfig cfg) {
        if (!cfg.decodesText()) {
            return SequencePrompts.NONE;
        }
        RecordsConfig r = cfg.records();
        return SequencePrompts.of(r.tokenizer(), r.prompt(), r.promptsFile());
    }

    /** The steps run {@code runId} issues: its shape with each sequence's prompt. */
    public static StepFactory stepFactory(JobConfig cfg, String runId) {
        return new StepFactory(runShape(cfg, runId), prompts(cfg));
    }

    /**
     * The public shape of run {@code runId} of this spec: ensemble, run seed, vocabulary, step
     * deadline and the bounds of its steps (attempts per position count the watchdog's re-issues).
     */
    public static RunShape runShape(JobConfig cfg, String runId) {
        JobSections.Generation g = cfg.generation();
        return new RunShape(
                runId,
                cfg.ensemble().id(),
                cfg.sampler().seed(),
                cfg.ensemble().effectiveVocabulary(),
                g.stepDeadlineMs(),
                g.sequences(),
                g.maxSteps(),
                Math.max(g.maxAttempts(), cfg.firstAttempts()) * (g.maxReissues() + 1),
                earlyStop(cfg));
    }

    /**
     * {@code generation.min-tokens} and the run's public stop tokens: the configured stop token,
     * and in records runs end-of-text and every token whose text holds a stop string.
     */
    static EarlyStop earlyStop(JobConfig cfg) {
        int min = cfg.get(JobOptions.GENERATION_MIN_TOKENS);
        if (min == 0) {
            return EarlyStop.NONE;
        }
        return new EarlyStop(min, sequenceText(cfg).stopTokens(cfg.generation().stopToken()));
    }
}
