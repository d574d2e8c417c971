package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.Test;

class RunReportTest {
    private static RunReport report(String spec) {
        JobConfig cfg = JobSpec.parse(spec, "x");
        RunOutcome outcome =
                new RunOutcome(cfg.generation().sequences(), cfg.generation().concurrency(), false);
        return new RunReport(cfg, "x-run", outcome, 0, 0.5, 3.0, 125.4, 10);
    }

    @Test
    void aRecordsRunKeepsItsWallTimeOutOfThePublicSummary() {
        RunReport r = report("ensemble: {source: records}");
        ObjectNode pub = r.summary();
        assertThat(pub.has("elapsedSeconds")).isFalse();
        assertThat(pub.has("tokensPerSecond")).isFalse();
        ObjectNode op = r.operatorSummary();
        assertThat(op.get("elapsedSeconds").asDouble()).isEqualTo(125.4);
        assertThat(op.has("tokensPerSecond")).isTrue();
    }

    /** The LLM worker's answer times follow its teachers' prompts: the private records. */
    @Test
    void externalTeachersOfARecordsFileKeepTheirWallTimeOutOfThePublicSummary() {
        RunReport r =
                report(
                        "ensemble: {source: external, kind: heterogeneous, teachers: 4}\n"
                                + "records: {file: private.jsonl}");
        assertThat(r.summary().has("elapsedSeconds")).isFalse();
        assertThat(r.summary().has("tokensPerSecond")).isFalse();
        assertThat(r.operatorSummary().get("elapsedSeconds").asDouble()).isEqualTo(125.4);
    }

    @Test
    void aSimulatedRunStillPublishesItsWallTime() {
        RunReport r = report("");
        assertThat(r.summary().get("elapsedSeconds").asDouble()).isEqualTo(125.4);
        assertThat(r.summary().has("tokensPerSecond")).isTrue();
        assertThat(r.operatorSummary().get("elapsedSeconds").asDouble()).isEqualTo(125.4);
    }

    @Test
    void theSummaryPrintsTheEnforcedDatasetCap_andWhatEachEpsilonMeans() {
        // the dataset's plan (fixed at its first use) enforces 3.0; this run asked for 5.0
        ObjectNode pub = report("budget: {dataset-epsilon: 5.0}").summary();
        assertThat(pub.get("datasetBudgetEpsilon").asDouble()).isEqualTo(3.0);
        assertThat(pub.get("datasetBudgetEpsilonRequested").asDouble()).isEqualTo(5.0);
        assertThat(pub.get("epsilonMeaning").asText())
                .contains("progress")
                .contains("budgetEpsilon")
                .contains("datasetBudgetEpsilon");
        assertThat(pub.has("epsilon")).isTrue();
        assertThat(pub.has("budgetEpsilon")).isTrue();
    }

    /**
     * The summary's epsilon is never below the run's durable ledger entry: the followed ledger
     * topic can lag behind an open transaction when the run ends (issue 23, item 9).
     */
    @Test
    void theSummarysEpsilonIsNeverBelowTheRunsDurableEntry() {
        JobConfig cfg = JobSpec.parse("", "x");
        RunOutcome outcome =
                new RunOutcome(cfg.generation().sequences(), cfg.generation().concurrency(), false);
        assertThat(outcome.epsilon()).isZero();
        outcome.durableEpsilon(1.25);
        outcome.durableEpsilon(0.5); // never lowers it
        RunReport r = new RunReport(cfg, "x-run", outcome, 0, 1.25, 3.0, 1, 1);
        assertThat(r.summary().get("epsilon").asDouble()).isEqualTo(1.25);
    }
}
