package org.hotpate.cli;

/** Bad command-line input: the CLI prints the message (no stack trace) and exits with code 2. */
public final class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message);
    }
}
