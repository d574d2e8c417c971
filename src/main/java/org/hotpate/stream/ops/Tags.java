package org.hotpate.stream.ops;

import org.apache.flink.util.OutputTag;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.Rejected;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.model.TeacherSpend;
import org.hotpate.model.Vote;

/** Side outputs shared by the operators. */
public final class Tags {
    private Tags() {}

    /** Dead letters (every operator that refuses input writes here, with a reason). */
    public static final OutputTag<Rejected> REJECTED = new OutputTag<>("rejected") {};

    /** Privacy ledger entries (operator-only). */
    public static final OutputTag<LedgerEntry> LEDGER = new OutputTag<>("ledger") {};

    /** The run's entry in the durable per-dataset budget ledger (after every charge). */
    public static final OutputTag<BudgetRecord> BUDGET_LEDGER = new OutputTag<>("budget-ledger") {};

    /**
     * Per-teacher spending (scheme-a/scheme-b runs): the durable ledger's {@code
     * <dataset>/teacher/<id>} entries, operator-only.
     */
    public static final OutputTag<TeacherSpend> TEACHER_LEDGER =
            new OutputTag<>("teacher-ledger") {};

    /**
     * Scheme A's released outcomes to the involved teachers (the accountant's feedback; the job
     * writes them to the operator-only {@code teacher-feedback} topic and reads them back).
     */
    public static final OutputTag<TeacherFeedback> TEACHER_FEEDBACK =
            new OutputTag<>("teacher-feedback") {};

    /** Finished synthetic records. */
    /**
     * Votes made at the source ({@link DecodeDistributions}) for runs without per-teacher rules:
     * they go straight to the vote combiner and the step reducer, not through the vote operator.
     */
    public static final OutputTag<Vote> SOURCE_VOTES = new OutputTag<>("source-votes") {};

    public static final OutputTag<SyntheticRecord> RECORDS = new OutputTag<>("records") {};
}
