package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.function.UnaryOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 30 item 5: a release, the teacher charges it rests on and the next step are visible
 * together or not at all. The vote operator writes each teacher's charge when the teacher votes
 * (upstream of the release, so in the same checkpoint or an earlier one), the accountant the
 * release, the sequence loop the next step. With two sink subtasks they went out in two Kafka
 * transactions, committed one after the other; a kill between the two commits, with no restore,
 * left a visible release without its charge. One sink subtask writes every output, and its
 * transactions commit in checkpoint order, so nothing is ever visible before what it rests on.
 */
class OneTransactionTopologyTest {
    @ParameterizedTest
    @ValueSource(strings = {"local", "kafka"})
    void everyOutputOfTheJobGoesThroughOneSinkSubtask(String ledger) {
        JobConfig cfg =
                JobSpec.parse(
                        """
                        name: one-tx
                        ensemble: {teachers: 20, source: planet-z, kind: heterogeneous, k: 3, seed: 5, top-k: 32}
                        sampler: {type: coordinated, seed: 11}
                        mechanism: {name: scheme-a, params: {epsilon: 0.1, lower: 5, upper: 15, sample-rate: 0.5}}
                        budget: {epsilon: 50.0, delta: 1.0e-6, per-teacher-epsilon: 5.0, ledger: %s}
                        generation: {sequences: 4, concurrency: 4, max-steps: 3}
                        kafka: {mode: external, bootstrap: "127.0.0.1:9"}
                        flink: {parallelism: 2}
                        """
                                .formatted(ledger),
                        "one-tx");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        String runId = "one-tx-run";
        HotPateJob.build(
                env,
                cfg,
                runId,
                RunContext.of(DatasetPrior.empty(cfg.datasetId()), java.util.Map.of()),
                org.hotpate.stream.driver.LedgerStores.of(cfg, null).sink(),
                JobIo.kafka(cfg, "127.0.0.1:9", runId, 0L, new Properties(), Optional.empty()),
                UnaryOperator.identity());
        java.util.Collection<StreamNode> nodes = env.getStreamGraph().getStreamNodes();
        List<StreamNode> sink =
                nodes.stream().filter(n -> n.getOperatorName().startsWith("kafka-sink")).toList();
        assertThat(sink).as("the sink's writer and committer").isNotEmpty();
        assertThat(sink).allSatisfy(n -> assertThat(n.getParallelism()).isEqualTo(1));
        assertThat(
                        nodes.stream()
                                .filter(n -> n.getOperatorName().startsWith("encode-"))
                                .map(StreamNode::getParallelism))
                .as("the operators before it keep the job's parallelism")
                .contains(2);
    }
}
