package org.hotpate.stream.driver;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.hotpate.io.KafkaIo;
import org.hotpate.protocol.DatasetAdmission;
import org.hotpate.protocol.LocalHold;
import org.hotpate.stream.HotPateJob;
import org.hotpate.stream.JobIo;
import org.hotpate.stream.RunContext;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;

/**
 * Entry point for application-mode deployments (Flink Kubernetes operator {@code entryClass},
 * {@code flink run -c org.hotpate.stream.driver.ClusterJob}): {@code main()} runs on the cluster,
 * so the job takes the cluster's execution environment instead of starting a MiniCluster or
 * submitting remotely as {@code ./hotpate run} does. Teachers are external (a {@code ./hotpate
 * teachers} worker or an inference service on the same topics); outputs stay on the Kafka topics.
 *
 * <p>Arguments: {@code SPEC.yaml [RUN-ID]}. The run id defaults to the spec's {@code name} and must
 * stay the same across restarts of the same run, since operators filter records by run id and
 * restore their state under it.
 *
 * <p>Admission (issue 30 item 2): the same sequence as {@code ./hotpate run} ({@link
 * RunAdmission#admit}, the decision {@link DatasetAdmission#decide} with {@link
 * DatasetAdmission.Start#DEPLOYMENT}); {@code main()} holds the dataset (the Kafka lease) until the
 * job ends.
 */
public final class ClusterJob {
    private ClusterJob() {}

    /**
     * A deployment admitted on its dataset: the ledger stays open, so the dataset stays held (the
     * Kafka lease heartbeats; the local lock) until {@link #close} — {@link #main} closes it when
     * the job ends.
     */
    record Deployment(DatasetLedger ledger, RunAdmission.Admitted admitted, RunContext run)
            implements AutoCloseable {
        /**
         * The job ended cleanly (FINISHED): its account is marked finished, so a redeployment of
         * the run is refused rather than charged as a fork (issue 39 item 4).
         */
        void finished() {
            ledger.markFinished(admitted.account());
        }

        @Override
        public void close() {
            ledger.close();
        }
    }

    /**
     * How long a deployment waits for a silent claim of its own run id to lapse (a JobManager
     * restarted before its driver released the claim): the lease timeout and two heartbeats.
     */
    static java.time.Duration ownClaimWait() {
        DatasetHolds.LeaseTiming t = DatasetHolds.timing();
        return t.timeout().plus(t.heartbeat().multipliedBy(2));
    }

    /**
     * The admission of a deployment of run {@code runId} ({@link RunAdmission#admit}, the sequence
     * {@code ./hotpate run} runs too): opens the dataset's ledger, holds the dataset (the Kafka
     * lease, or the local lock) — a second deployment on a held dataset is refused — and decides
     * the ledger account ({@link DatasetAdmission.Start#DEPLOYMENT}). A deployment restoring {@code
     * savepoint} (null: none) whose {@code hotpate-run.json} names the run continues the run's
     * account while the savepoint's recorded ledger state covers its entry (else a fork); any other
     * deployment is charged under the run's own account on the dataset's first deployment of the
     * run, and as a fork on top of every earlier account once the ledger holds the run id (a
     * redeploy of the same manifest, or an upgrade): never a reset. A run marked finished is
     * refused. Per-teacher schemes start every teacher from its charges on the dataset.
     */
    static Deployment admit(JobConfig cfg, String runId, String savepoint, Properties client) {
        return admit(cfg, runId, savepoint, client, null);
    }

    /**
     * {@link #admit(JobConfig, String, String, Properties)} for the job of fixed id {@code jobId}
     * (null: unknown): a silent claim of the run naming that job is the deployment's own.
     */
    static Deployment admit(
            JobConfig cfg, String runId, String savepoint, Properties client, String jobId) {
        DatasetLedger ledger = DatasetLedger.open(cfg, client);
        ledger.ownJob(jobId);
        try {
            DatasetAdmission.Snapshot snapshot =
                    RunMetadata.find(savepoint)
                            .filter(m -> m.runId().equals(runId))
                            .map(RunMetadata::snapshot)
                            .orElse(null);
            RunAdmission.Admitted a =
                    RunAdmission.admit(
                            ledger,
                            new DatasetAdmission.Request(
                                    runId, DatasetAdmission.Start.DEPLOYMENT, snapshot),
                            client,
                            // the open transactions of a run whose lapsed claim this one fenced
                            () ->
                                    RunAdmission.abortLeftoverTransactions(
                                            cfg, client, ledger, runId),
                            ownClaimWait(),
                            System.err);
            // On an upgrade the restored keyed state of a teacher charged in this run wins.
            RunContext run = ledger.teacherPriors().context(a.prior(), null, a.account());
            return new Deployment(ledger, a, run);
        } catch (RuntimeException e) {
            ledger.close();
            throw e;
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
        if (!LedgerStores.of(cfg, null).shared()) {
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
        Configuration conf = HotPateJob.flinkConfiguration(cfg, cfg.flink().stateDir().get(), null);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(cfg.flink().parallelism());
        // The savepoint the operator restores (upgradeMode savepoint, initialSavepointPath).
        String savepoint =
                env.getConfiguration()
                        .getOptional(StateRecoveryOptions.SAVEPOINT_PATH)
                        .orElse(null);
        // The job's id, fixed before the claim so that the claim can name it (HA fixes it already).
        String jobId = RunInfra.fixJobId(env);
        // Held while the job runs: the lease heartbeats from here, and is released when it ends.
        try (Deployment d = admit(cfg, runId, savepoint, client, jobId)) {
            long startMs = System.currentTimeMillis() - 1000;
            HotPateJob.build(
                    env,
                    cfg,
                    runId,
                    d.run(),
                    d.ledger().store().sink(),
                    JobIo.kafka(cfg, bootstrap, runId, startMs, client, java.util.Optional.empty()),
                    java.util.function.UnaryOperator.identity());
            // The claim names the job before it exists (a fixed id), and a lost lease cancels it:
            // the accountant runs on TaskManagers, which cannot check this JVM's lease.
            d.ledger().jobSubmitting(restBase(env.getConfiguration()), jobId);
            java.util.concurrent.atomic.AtomicReference<JobClient> job =
                    new java.util.concurrent.atomic.AtomicReference<>();
            d.ledger().onLeaseLost(() -> RunInfra.cancelJob(job.get()));
            if (d.ledger().leaseLost() != null) {
                throw new IllegalStateException(
                        "run " + runId + " not started: " + d.ledger().leaseLost());
            }
            // executeAsync and wait: a detached application's execute() returns at submission,
            // and the dataset must stay held while the job runs.
            job.set(env.executeAsync(LocalHold.jobName(runId)));
            if (d.ledger().leaseLost() != null) {
                RunInfra.cancelJob(job.get()); // lost while submitting
            }
            job.get().getJobExecutionResult().get();
            d.finished(); // a cancelled or failed job throws above: only FINISHED gets here
        }
    }

    /** This JobManager's REST address ({@code rest.address}, else the JobManager's address). */
    static String restBase(org.apache.flink.configuration.ReadableConfig conf) {
        String host =
                conf.getOptional(org.apache.flink.configuration.RestOptions.ADDRESS)
                        .orElseGet(
                                () ->
                                        conf.getOptional(
                                                        org.apache.flink.configuration
                                                                .JobManagerOptions.ADDRESS)
                                                .orElse("localhost"));
        return "http://" + host + ":" + conf.get(org.apache.flink.configuration.RestOptions.PORT);
    }
}
