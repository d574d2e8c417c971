package org.hotpate.stream.config;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.util.Optional;
import org.hotpate.core.generation.FailPolicy;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.stream.teachers.TeacherKind;

/**
 * The checks of a {@link JobConfig} that concern several options (the mechanism's are {@link
 * MechanismChoice}'s): applied to every configuration when it is built, whatever the entry point.
 */
final class JobChecks {
    private JobChecks() {}

    /** Every cross-check, in this order; the first that fails raises IllegalArgumentException. */
    static void check(JobConfig c) {
        checkArgument(
                c.name().matches("[A-Za-z0-9._-]+"),
                "name must match [A-Za-z0-9._-]+; got '" + c.name() + "'");
        checkArgument(
                c.budget().perTeacherVotes() == 0 || c.ensemble().heterogeneous(),
                "budget.per-teacher-votes needs ensemble.kind: heterogeneous; got "
                        + c.budget().perTeacherVotes()
                        + " for a homogeneous ensemble");
        checkArgument(
                c.budget().perTeacherDelta().isEmpty() || c.budget().perTeacherEpsilon() > 0,
                "budget.per-teacher-delta needs budget.per-teacher-epsilon > 0; got "
                        + c.budget().perTeacherDelta().orElse(0.0));
        checkArgument(
                c.get(JobOptions.KAFKA_EMBEDDED_PORT) == 0
                        || (c.kafka().embedded() && !c.kafka().security().sasl()),
                "kafka.embedded-port is for a plaintext embedded broker (kafka.mode: embedded,"
                        + " no SASL)");
        checkArgument(
                !c.ensemble().fromRecords() || !c.kafka().security().sasl(),
                "ensemble.source: records does not support kafka.security-protocol "
                        + c.kafka().security().protocol()
                        + " yet (the records loader's Kafka clients do not authenticate);"
                        + " use PLAINTEXT, e.g. on a private network");
        checkArgument(
                c.minTeachers() <= c.ensemble().teachers(),
                "generation.min-teachers must be <= ensemble.teachers ("
                        + c.ensemble().teachers()
                        + "); got "
                        + c.minTeachers());
        checkArgument(
                c.generation().watchdogMs().orElse(Long.MAX_VALUE)
                        > c.generation().stepDeadlineMs(),
                "generation.watchdog-ms must be 0 (derived) or > generation.step-deadline-ms ("
                        + c.generation().stepDeadlineMs()
                        + "); got "
                        + c.generation().watchdogMs().orElse(0L));
        checkArgument(
                !c.budget().ledger().equals(Optional.of("local"))
                        || c.flink().embedded()
                        || c.flink().sharedFilesystem(),
                "budget.ledger: local needs flink.mode: embedded or flink.filesystem: shared (the"
                        + " accountant writes the ledger files from the TaskManagers); use"
                        + " budget.ledger: kafka on a cluster");
        checkArgument(
                !c.budget().ledger().equals(Optional.of("kafka")) || !c.kafka().embedded(),
                "budget.ledger: kafka needs kafka.mode: external (the embedded broker's log is"
                        + " deleted when the run ends, so the ledger would not survive it)");
        checkEnsemble(c.ensemble());
        checkArgument(
                c.kafka().embedded() || !c.kafka().bootstrap().isBlank(),
                "kafka.bootstrap must be set when kafka.mode is external");
        checkArgument(
                !c.kafka().security().sasl() || !c.kafka().security().username().isBlank(),
                "kafka.sasl.username must be set when kafka.security-protocol is "
                        + c.kafka().security().protocol());
        checkArgument(
                c.flink().embedded() || !c.flink().host().isBlank(),
                "flink.host must be set when flink.mode is remote");
        checkArgument(
                c.flink().maxParallelism() >= c.flink().parallelism(),
                "flink.max-parallelism must be >= flink.parallelism ("
                        + c.flink().parallelism()
                        + ") and <= 32768; got "
                        + c.flink().maxParallelism());
        checkRecords(c);
    }

    /** Planet-Z needs its vocabulary and at most 900 shared numbers. */
    private static void checkEnsemble(JobConfig.Ensemble e) {
        if (e.source() == JobConfig.TeacherSource.PLANET_Z) {
            checkArgument(
                    e.vocabularySize() >= 1050,
                    "ensemble.vocabulary must be >= 1050 for planet-z; got " + e.vocabularySize());
            checkArgument(e.k() <= 900, "ensemble.k must be <= 900 for planet-z; got " + e.k());
        }
    }

    /**
     * What the server behind an http teacher can do (docs/llm-teachers.md): a server-seeded vote is
     * a coordinated draw only where one seed gives every request of a step the same exponential
     * race — vLLM's V1 sampler, or its model runner V2 when every prompt has one token length.
     */
    private static void checkHttpTeacher(RecordsConfig.Teacher t) {
        String server = t.server();
        if (t.serverSeeded()) {
            checkArgument(
                    server.equals("vllm") || server.equals("vllm-v2"),
                    "teacher.vote: server-seeded is a coordinated draw only on vLLM's V1 sampler"
                            + " (teacher.server: vllm, or vllm-v2 with teacher.pad-tokens); "
                            + server
                            + "'s seed is not an exponential race shared by all requests"
                            + " (llama.cpp: an inverse-CDF draw; openai: best-effort), so it is"
                            + " refused; use teacher.vote: distribution");
            checkArgument(
                    !server.equals("vllm-v2") || (t.tokenIds() && t.padTokens() > 0),
                    "teacher.server: vllm-v2 keys its noise by position: a server-seeded vote"
                            + " needs teacher.token-ids: true and teacher.pad-tokens > 0 so that"
                            + " every prompt of a step has one token length");
        }
        checkArgument(
                !server.equals("openai") || t.topK() <= 20,
                "teacher.server: openai returns at most 20 log-probabilities; teacher.top-k must"
                        + " be <= 20; got "
                        + t.topK());
        checkArgument(
                t.padTokens() == 0 || t.tokenIds(),
                "teacher.pad-tokens needs teacher.token-ids: true (padding is counted in tokens)");
    }

    /** What a records run needs: one prompt source, an http teacher's URL, no public fallback. */
    private static void checkRecords(JobConfig c) {
        RecordsConfig r = c.records();
        checkArgument(
                r.prompt().isEmpty() || r.promptsFile().isEmpty(),
                "set generation.prompt or generation.prompts-file, not both");
        TeacherKind<?> kind = r.teacher().kind(); // the kind refuses what it cannot honour
        checkHttpTeacher(r.teacher());
        checkArgument(
                !c.ensemble().fromRecords() || c.generation().onFail() != FailPolicy.FALLBACK,
                "generation.on-fail: fallback needs a simulated ensemble's public model; records"
                        + " runs use resample or stop");
        checkArgument(
                c.ensemble().source() != JobConfig.TeacherSource.EXTERNAL
                        || c.generation().onFail() != FailPolicy.FALLBACK,
                "generation.on-fail: fallback needs a public model, and a run with external"
                        + " teachers has only a flat one (it would pad the text with uniformly random"
                        + " tokens); use resample or stop");
        checkPrior(c, r, kind);
    }

    /**
     * {@code teacher.prior: dp-ngram}: the driver releases the prior from the records file, and the
     * run's filter charges it first — so it needs ngram teachers of a records file, a finite run
     * budget with a DP ensemble mechanism, and no dataset cap (the dataset's δ share is planned
     * without the prior's δ term).
     */
    private static void checkPrior(JobConfig c, RecordsConfig r, TeacherKind<?> kind) {
        if (!r.teacher().dpPrior()) {
            return;
        }
        String why = "teacher.prior: dp-ngram needs ";
        checkArgument(
                c.ensemble().fromRecords() && kind.backsOffToPrior(),
                why + "ensemble.source: records with teacher.model: ngram");
        checkArgument(
                !r.file().isEmpty(), why + "records.file (the driver reads the users' records)");
        checkArgument(
                Double.isFinite(c.budget().epsilon())
                        && c.mechanism().entry().differentiallyPrivate(),
                why + "a finite budget.epsilon and a DP mechanism (its release is charged to it)");
        checkArgument(
                c.mechanism().kind() != MechanismRegistry.Kind.PER_TEACHER,
                why + "an ensemble mechanism (the per-teacher schemes do not charge it)");
        checkArgument(
                !Double.isFinite(c.budget().datasetEpsilon()),
                why
                        + "no budget.dataset-epsilon (the dataset filter's delta share is planned"
                        + " without the prior's delta term)");
    }
}
