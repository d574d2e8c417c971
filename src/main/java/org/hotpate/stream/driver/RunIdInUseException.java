package org.hotpate.stream.driver;

/** A fresh run whose run id the dataset's ledger already holds (only a resume may reuse one). */
public final class RunIdInUseException extends RunRefusedException {
    private static final long serialVersionUID = 1L;

    public RunIdInUseException(String message) {
        super(message);
    }
}
