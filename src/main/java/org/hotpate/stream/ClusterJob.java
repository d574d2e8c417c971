package org.hotpate.stream;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.hotpate.io.KafkaIo;

/**
 * Entry point for application-mode deployments (Flink Kubernetes operator {@code entryClass},
 * {@code flink run -c org.hotpate.stream.ClusterJob}): {@code main()} runs on the cluster, so the
 * job takes the cluster's execution environment instead of starting a MiniCluster or submitting
 * remotely as {@code ./hotpate run} does. Teachers are external (a {@code ./hotpate teachers}
 * worker or an inference service on the same topics); outputs stay on the Kafka topics.
 *
 * <p>Arguments: {@code SPEC.yaml [RUN-ID]}. The run id defaults to the spec's {@code name} and must
 * stay the same across restarts of the same run, since operators filter records by run id and
 * restore their state under it.
 */
public final class ClusterJob {
    private ClusterJob() {}

    /**
     * Earlier runs on the dataset, and the ledger account this deployment charges ({@link
     * DatasetLedger#deploymentAccount}): the run's own account on its first deployment; a fork
     * composed on top of every earlier account when the ledger already holds the run id (a redeploy
     * of the same manifest, or an upgrade), so a redeploy never resets the dataset's budget. A
     * fresh noise secret — on a restore the reducer's operator state keeps the original one (and
     * the fork's account keys fresh noise).
     */
    static RunContext admit(JobConfig cfg, String runId, Properties client) {
        try (DatasetLedger ledger = DatasetLedger.open(cfg, client)) {
            String account = ledger.deploymentAccount(runId);
            if (!account.equals(runId)) {
                System.err.println(
                        "hotpate ClusterJob: the budget ledger already holds run "
                                + runId
                                + ": this deployment is charged as "
                                + account
                                + " on top of it");
            }
            org.hotpate.protocol.DatasetPrior prior = ledger.prior(account, false);
            ledger.requireRoom(prior);
            // Per-teacher schemes: every teacher starts from its charges on the dataset (on an
            // upgrade the restored keyed state of a teacher charged in this run wins).
            return RunContext.of(prior, ledger.teacherPriors(), null, account);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: ClusterJob SPEC.yaml [RUN-ID]");
            System.exit(2);
        }
        JobConfig cfg = JobSpec.load(Path.of(args[0]));
        String runId = args.length == 2 ? args[1] : cfg.name();
        if (cfg.kafka().embedded()) {
            throw new JobSpec.SpecException("kafka.mode must be external for a cluster deployment");
        }
        if (cfg.flink().stateDir().isEmpty()) {
            throw new JobSpec.SpecException(
                    "flink.state-dir must be set for a cluster deployment (a checkpoint path every TaskManager can reach)");
        }
        if (cfg.ledgerMode() != JobConfig.LedgerMode.KAFKA) {
            throw new JobSpec.SpecException(
                    "budget.ledger must be kafka for a cluster deployment (TaskManagers share no"
                            + " local ledger directory)");
        }
        if (cfg.ensemble().fromRecords()
                && cfg.records().teacher().dpPrior()
                && cfg.records().teacher().priorFile().isEmpty()) {
            throw new JobSpec.SpecException(
                    "teacher.prior: dp-ngram is released by ./hotpate run's driver; a cluster"
                            + " deployment runs no driver: set teacher.prior-file to a released"
                            + " prior.jsonl (public once released) or use teacher.prior: none");
        }
        String bootstrap = cfg.kafka().bootstrap();
        Properties client = KafkaClients.job(cfg, bootstrap, KafkaClients.ENV);
        KafkaIo.createTopics(
                client,
                cfg.kafka().topics().names(Topic.CREATED_WITH_RUN),
                cfg.kafka().partitions(),
                Map.of());
        RunContext run = admit(cfg, runId, client);

        Configuration conf = HotPateJob.flinkConfiguration(cfg, cfg.flink().stateDir().get(), null);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(cfg.flink().parallelism());
        long startMs = System.currentTimeMillis() - 1000;
        HotPateJob.build(
                env,
                cfg,
                runId,
                run,
                JobIo.kafka(cfg, bootstrap, runId, startMs, client, java.util.Optional.empty()),
                java.util.function.UnaryOperator.identity());
        env.execute("hotpate " + runId);
    }
}
