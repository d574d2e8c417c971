package org.hotpate.stream.driver;

import org.hotpate.protocol.DatasetAdmission;

/**
 * A run the dataset's ledger refuses before anything starts ({@code ./hotpate run} exits 2 with the
 * message): another accounting on the dataset (per-teacher vs ensemble), a cap asked for after
 * uncapped runs, a finished run resumed or redeployed — and the subclasses {@link
 * NoBudgetLeftException}, {@link RunIdInUseException}, {@link DatasetInUseException}.
 */
public class RunRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RunRefusedException(String message) {
        super(message);
    }

    /** The driver's exception for a refusal of the admission rules ({@link DatasetAdmission}). */
    static RunRefusedException of(DatasetAdmission.Refused r) {
        return switch (r.reason()) {
            case NOT_HELD -> new DatasetInUseException(r.getMessage());
            case RUN_ID_IN_USE -> new RunIdInUseException(r.getMessage());
            case NO_ROOM -> new NoBudgetLeftException(r.getMessage());
            case FINISHED, OTHER_ACCOUNTING, CAP_AFTER_USE ->
                    new RunRefusedException(r.getMessage());
        };
    }
}
