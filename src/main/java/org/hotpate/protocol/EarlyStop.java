package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.io.Serializable;
import java.util.Arrays;
import org.hotpate.core.vote.VoteHistogram;

/**
 * {@code generation.min-tokens}: a record has at least {@code minTokens} tokens. Before that many
 * tokens are appended, a teacher's vote for a <em>stop token</em> (end-of-text, the configured stop
 * token, or a token whose text holds a stop string) abstains, so a step spends its vote on how the
 * record goes on rather than on ending it; and a released token that would end the sequence there
 * counts as a ⊥ ({@link SequenceProgress}).
 *
 * <p>Privacy: both are public rules. Turning a vote into an abstention is a function of that
 * teacher's own vote and public values (the position, the public stop set), so one teacher still
 * changes at most its own entry of the histogram (sensitivity unchanged, replace-one); treating a
 * released token as ⊥ is post-processing of the release, which stays charged.
 */
public record EarlyStop(int minTokens, int[] stopTokens) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** No early-stop rule. */
    public static final EarlyStop NONE = new EarlyStop(0, new int[0]);

    public EarlyStop {
        checkArgument(minTokens >= 0, "generation.min-tokens must be >= 0; got " + minTokens);
        stopTokens = checkNotNull("stopTokens", stopTokens).clone();
        Arrays.sort(stopTokens);
    }

    /** The vote a teacher's vote {@code vote} at position {@code position} stands for. */
    public int mask(int position, int vote) {
        return position < minTokens && isStop(vote) ? VoteHistogram.ABSTAIN : vote;
    }

    /** Whether {@code token} is one of the public stop tokens. */
    public boolean isStop(int token) {
        return token >= 0 && Arrays.binarySearch(stopTokens, token) >= 0;
    }

    @Override
    public int[] stopTokens() {
        return stopTokens.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EarlyStop e
                && e.minTokens == minTokens
                && Arrays.equals(e.stopTokens, stopTokens);
    }

    @Override
    public int hashCode() {
        return 31 * minTokens + Arrays.hashCode(stopTokens);
    }

    @Override
    public String toString() {
        return "EarlyStop[minTokens=" + minTokens + ", stopTokens=" + stopTokens.length + "]";
    }
}
