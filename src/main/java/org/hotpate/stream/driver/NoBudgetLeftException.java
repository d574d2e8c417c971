package org.hotpate.stream.driver;

/** A run that cannot start because its dataset's budget is spent. */
public final class NoBudgetLeftException extends RunRefusedException {
    private static final long serialVersionUID = 1L;

    public NoBudgetLeftException(String message) {
        super(message);
    }
}
