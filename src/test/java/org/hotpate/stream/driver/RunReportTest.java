package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.Outcome;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.protocol.LedgerEntries;
import org.hotpate.protocol.StepId;
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

    /**
     * Issue 37 item 4: after a teacher worker was killed mid-run, two charged tokens were in the
     * ledger but in no record, and summary.json said tokens 0, privateTokens 2 with nothing saying
     * why. The summary counts them and names the reason; once their sequence has its record the
     * count is 0 and the two figures agree.
     */
    @Test
    void chargedTokensInNoRecord_areCountedWithTheirReason() {
        JobConfig cfg = JobSpec.parse("generation: {sequences: 2, concurrency: 2}", "x");
        RunOutcome outcome = new RunOutcome(2, 2, false);
        for (int step = 0; step < 2; step++) {
            outcome.add(
                    new StepResult(
                            "x-run", 0, step, 0, Outcome.TOKEN, 7 + step, "m", "", 0.1, 0, 3));
        }
        ObjectNode pub = new RunReport(cfg, "x-run", outcome, 0, 0.1, 3.0, 1, 1).summary();
        assertThat(pub.get("tokens").asLong()).isZero();
        assertThat(pub.get("privateTokens").asLong()).isEqualTo(2);
        assertThat(pub.get("sequencesUnfinished").asInt()).isEqualTo(2);
        assertThat(pub.get("privateTokensWithoutRecord").asLong()).isEqualTo(2);
        assertThat(pub.get("privateTokensWithoutRecordReason").asText())
                .contains("no record")
                .contains("sequencesUnfinished");
        outcome.add(
                new SyntheticRecord(
                        "x-run", 0, new int[] {7, 8}, "ab", 2, 0, 0, FinishReason.MAX_STEPS, 1L));
        pub = new RunReport(cfg, "x-run", outcome, 0, 0.1, 3.0, 1, 1).summary();
        assertThat(pub.get("privateTokensWithoutRecord").asLong()).isZero();
        assertThat(pub.has("privateTokensWithoutRecordReason")).isFalse();
        assertThat(pub.get("tokens").asLong()).isEqualTo(pub.get("privateTokens").asLong());
    }

    /**
     * Issue 37 item 3: operator.json's agreement profile is the distribution of the votes for each
     * released token (⊥, refusals and abandoned steps left out), and summary.json has none of it.
     * Fails with the percentile one rank off, with ⊥ or REFUSED entries counted, with votesCast in
     * place of the released token's votes, or with the profile in the public summary.
     */
    @Test
    void theAgreementProfileIsTheVotesForEachReleasedToken_operatorOnly() {
        JobConfig cfg = JobSpec.parse("ensemble: {teachers: 10}", "x");
        RunOutcome outcome = new RunOutcome(1, 1, false);
        int[] votes = {10, 10, 9, 7, 5, 3, 1, 10, 8, 6};
        for (int i = 0; i < votes.length; i++) {
            outcome.add(charge(i, true, votes[i]));
        }
        outcome.add(charge(10, true, -1)); // ⊥: nothing released, no votes
        outcome.add(charge(11, false, 2)); // refused: nothing released
        outcome.add(LedgerEntries.abandoned(new StepId("x-run", 0, 12, 0), "m", 2, 0));
        ObjectNode a = new RunReport(cfg, "x-run", outcome, 0, 0.1, 3.0, 1, 1).operatorSummary();
        a = (ObjectNode) a.get("agreement");
        assertThat(a.get("steps").asInt()).isEqualTo(10);
        assertThat(a.get("teachers").asInt()).isEqualTo(10);
        // sorted: 1 3 5 6 7 8 9 10 10 10; nearest rank: p10 = 1st, p50 = 5th, p90 = 9th
        assertThat(a.get("min").asInt()).isEqualTo(1);
        assertThat(a.get("p10").asInt()).isEqualTo(1);
        assertThat(a.get("p50").asInt()).isEqualTo(7);
        assertThat(a.get("p90").asInt()).isEqualTo(10);
        assertThat(a.get("max").asInt()).isEqualTo(10);
        assertThat(a.get("mean").asDouble()).isEqualTo(6.9);
        assertThat(a.get("meanShare").asDouble()).isEqualTo(0.69);
        assertThat(a.get("unanimousSteps").asInt()).isEqualTo(3);
        assertThat(a.get("shareTenths").toString()).isEqualTo("[0,1,0,1,0,1,1,1,1,4]");
        String pub = new RunReport(cfg, "x-run", outcome, 0, 0.1, 3.0, 1, 1).summary().toString();
        assertThat(pub).doesNotContain("agreement").doesNotContain("releasedVotes");
    }

    private static LedgerEntry charge(int step, boolean charged, int releasedVotes) {
        return LedgerEntries.release(
                new StepId("x-run", 0, step, 0),
                charged,
                "m",
                "",
                0.1,
                1e-6,
                step + 1,
                10,
                releasedVotes,
                0.1,
                0);
    }
}
