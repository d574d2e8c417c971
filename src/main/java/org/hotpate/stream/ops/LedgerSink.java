package org.hotpate.stream.ops;

import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;

/**
 * The operators' side of the run's ledger store (chosen once by the driver's {@code LedgerStores}):
 * where the accountant's run entries and the vote operator's teacher entries go durably. A store
 * whose entries travel on the job's exactly-once output ({@link #onJobOutput}: the Kafka topic, in
 * the same transaction as the releases they cover) writes nothing here; any other store writes them
 * in the operator's {@code snapshotState}, before the checkpoint's transaction commits.
 * Serializable: it travels in the job graph.
 */
public interface LedgerSink extends Serializable {
    /** The entries go on the job's transactional output (the budget-ledger topic). */
    LedgerSink JOB_OUTPUT = new JobOutput();

    /** Whether the job's sink carries the entries ({@link Tags#BUDGET_LEDGER}, TEACHER_LEDGER). */
    boolean onJobOutput();

    /** Writes a run entry durably, never lowering what the store holds (not on the job output). */
    void writeRun(BudgetRecord r) throws IOException;

    /** Writes a teacher entry durably (not on the job output). */
    void writeTeacher(TeacherSpend t) throws IOException;

    /** The local ledger in {@code dir} ({@code budget.ledger-dir}). */
    static LedgerSink local(String dir) {
        return new LocalFiles(dir);
    }

    /** {@link BudgetLedgerIo}'s files under {@code dir}. */
    record LocalFiles(String dir) implements LedgerSink {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean onJobOutput() {
            return false;
        }

        @Override
        public void writeRun(BudgetRecord r) throws IOException {
            BudgetLedgerIo.writeLocal(Path.of(dir), r);
        }

        @Override
        public void writeTeacher(TeacherSpend t) throws IOException {
            BudgetLedgerIo.writeTeacherLocal(Path.of(dir), t);
        }
    }

    /** The Kafka ledger: the job's one exactly-once sink writes the entries. */
    final class JobOutput implements LedgerSink {
        private static final long serialVersionUID = 1L;

        private JobOutput() {}

        @Override
        public boolean onJobOutput() {
            return true;
        }

        @Override
        public void writeRun(BudgetRecord r) {
            throw new IllegalStateException("the job's output carries the ledger's entries");
        }

        @Override
        public void writeTeacher(TeacherSpend t) {
            throw new IllegalStateException("the job's output carries the ledger's entries");
        }

        private Object readResolve() {
            return JOB_OUTPUT;
        }

        @Override
        public String toString() {
            return "LedgerSink.JOB_OUTPUT";
        }
    }
}
