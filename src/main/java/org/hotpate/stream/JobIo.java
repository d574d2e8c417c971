package org.hotpate.stream;

import java.util.Optional;
import java.util.Properties;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.KafkaOut;
import org.hotpate.model.RawRecord;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.Topic;
import org.hotpate.teachers.records.UserDirectory;

/**
 * The job's inputs and its one output, built outside the topology ({@link HotPateJob}: the caller
 * builds production Kafka I/O, tests may pass others): the steps and distributions sources, the
 * read_committed source of the job's own teacher-feedback topic (scheme-a), the private records of
 * a records run, and the exactly-once sink every output shares.
 */
public record JobIo(
        Source<RawRecord, ?, ?> steps,
        Source<RawRecord, ?, ?> distributions,
        Source<RawRecord, ?, ?> teacherFeedback,
        Optional<RecordsInput> records,
        Sink<KafkaOut> sink) {

    /**
     * The private records of a records run: a bounded source of the batch and the users → teachers
     * directory the driver built from it.
     */
    public record RecordsInput(Source<RawRecord, ?, ?> source, UserDirectory directory) {}

    /**
     * The run's Kafka I/O (the driver and the cluster job): sources from {@code startMs} on, in
     * consumer group {@code hotpate-job-<runId>}, and the transactional sink {@code
     * hotpate-<runId>} ({@code client}: the job principal's client properties).
     */
    public static JobIo kafka(
            JobConfig cfg,
            String bootstrap,
            String runId,
            long startMs,
            Properties client,
            Optional<RecordsInput> records) {
        JobConfig.Topics t = cfg.kafka().topics();
        String group = "hotpate-job-" + runId;
        return new JobIo(
                KafkaIo.rawSource(bootstrap, t.name(Topic.STEPS), group, startMs, client),
                KafkaIo.rawSource(bootstrap, t.name(Topic.DISTRIBUTIONS), group, startMs, client),
                KafkaIo.rawSource(
                        bootstrap, t.name(Topic.TEACHER_FEEDBACK), group, startMs, client),
                records,
                KafkaIo.exactlyOnceSink(
                        bootstrap,
                        transactionalIdPrefix(runId),
                        cfg.kafka().transactionTimeoutMs(),
                        client));
    }

    /**
     * The transactional-id prefix of run {@code runId}'s sink: the Flink Kafka sink names its
     * transactions {@code <prefix>-<subtask>-<checkpoint>}.
     */
    public static String transactionalIdPrefix(String runId) {
        return "hotpate-" + runId;
    }
}
