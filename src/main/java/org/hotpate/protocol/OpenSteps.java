package org.hotpate.protocol;

import java.util.Iterator;
import java.util.Map;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.StepRef;

/**
 * The set of open steps every teacher-keyed operator sees (a broadcast map, step key → step): a
 * step opens when it arrives and closes when a later step of its sequence arrives ({@link
 * StepId#supersedes}) or when it is older than the retention by the issue times in the data — so
 * the set holds about one step per sequence in flight, and only deterministic data.
 */
public final class OpenSteps {
    private OpenSteps() {}

    /**
     * Opens {@code step}: removes, through {@code open}'s iterator, every step it supersedes and
     * every step issued more than {@code retentionMs} before it. The caller then puts it.
     */
    public static void open(
            Iterator<Map.Entry<String, GenerationStep>> open,
            GenerationStep step,
            long retentionMs) {
        StepId id = StepId.of(step);
        while (open.hasNext()) {
            GenerationStep s = open.next().getValue();
            if (id.supersedes(s) || s.issuedAtMs() < step.issuedAtMs() - retentionMs) {
                open.remove();
            }
        }
    }

    /**
     * An open step that supersedes the step {@code answer} is for, or null: the answer's step is
     * closed, its result is out and the sequence has moved on (a scan of the open steps, for
     * answers whose own step is not open — off the common path).
     */
    public static GenerationStep supersedingStep(
            Iterable<Map.Entry<String, GenerationStep>> open, StepRef answer) {
        for (Map.Entry<String, GenerationStep> e : open) {
            if (StepId.of(e.getValue()).supersedes(answer)) {
                return e.getValue();
            }
        }
        return null;
    }
}
