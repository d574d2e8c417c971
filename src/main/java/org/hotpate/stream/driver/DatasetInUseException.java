package org.hotpate.stream.driver;

/** A run that cannot start because another run holds its dataset. */
public final class DatasetInUseException extends RunRefusedException {
    private static final long serialVersionUID = 1L;

    private final String holder;

    public DatasetInUseException(String message) {
        this(message, null);
    }

    /** {@code holder}: the run id of the run that holds the dataset (null: not known). */
    public DatasetInUseException(String message, String holder) {
        super(message);
        this.holder = holder;
    }

    /** The run id of the run holding the dataset, if known. */
    public java.util.Optional<String> holder() {
        return java.util.Optional.ofNullable(holder);
    }
}
