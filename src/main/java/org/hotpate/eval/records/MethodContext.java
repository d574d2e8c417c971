package org.hotpate.eval.records;

import java.util.List;
import java.util.Map;
import org.hotpate.core.generation.PublicDistribution;
import org.hotpate.teachers.ngram.NgramDistributions;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.text.Tokenizer;

/**
 * What every method of the records evaluation runs in: the options, the teaching users (sorted:
 * roster index = position) with their records and n-gram teachers, the public model (null: uniform)
 * and the prompts.
 */
record MethodContext(
        RecordsEvaluation.Options o,
        Tokenizer tok,
        int vocab,
        int n,
        int classes,
        List<NgramModel> teachers,
        NgramModel publicModel,
        List<int[]> prompts,
        Map<String, List<RecordsCorpus.Rec>> byUser,
        List<String> users) {
    /** The teachers' per-class model key (label "" is every record). */
    static String labelKey(int label) {
        return "c" + label;
    }

    /** The planned number of text-generation steps: sequences × max tokens. */
    long plannedSteps() {
        return (long) o.sequences() * o.maxTokens();
    }

    boolean labelled() {
        return o.fields().labelled();
    }

    PublicDistribution p0(int[] prefix) {
        if (publicModel == null) {
            return PublicDistribution.uniform(vocab);
        }
        try {
            return PublicDistribution.of(NgramDistributions.dense(publicModel, "", prefix, vocab));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
