package org.hotpate.eval.records;

import java.util.List;
import java.util.Map;
import org.hotpate.eval.BigramModel;
import org.hotpate.eval.CanaryExposure;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The records evaluation's canaries: {@link RecordsEvaluation#CANARY_PREFIX} followed by a random
 * secret of {@link RecordsEvaluation#CANARY_LENGTH} digit tokens, planted as extra records of a few
 * seeded teaching users; a method's exposure is measured on a bigram model of its output.
 *
 * @param canaries the planted canaries (empty with {@code --canaries 0})
 * @param digits the secret's alphabet: the tokens of the digits 0–9
 */
record RecordsCanaries(List<CanaryExposure.Canary> canaries, int[] digits) {
    /**
     * Makes {@code count} canaries from {@code seed} and adds each as one more record of a seeded
     * teaching user (round robin over a shuffled roster; labelled like that user's first record).
     */
    static RecordsCanaries plant(
            int count,
            Tokenizer tok,
            long seed,
            List<String> users,
            Map<String, List<RecordsCorpus.Rec>> byUser) {
        int[] prefix = tok.encode(RecordsEvaluation.CANARY_PREFIX);
        int[] digits = new int[10];
        for (int d = 0; d < 10; d++) {
            digits[d] = tok.singleTokenId(Integer.toString(d));
        }
        List<CanaryExposure.Canary> canaries =
                count == 0
                        ? List.of()
                        : CanaryExposure.make(
                                count,
                                withSpace(prefix, tok),
                                digits,
                                RecordsEvaluation.CANARY_LENGTH,
                                seed ^ 0x5eedL);
        List<String> shuffled = UserSplit.shuffle(users, seed + 1);
        for (int c = 0; c < canaries.size(); c++) {
            String u = shuffled.get(c % shuffled.size());
            List<RecordsCorpus.Rec> own = byUser.get(u);
            int[] seq = canaries.get(c).sequence();
            own.add(new RecordsCorpus.Rec(u, tok.decode(seq), seq, own.get(0).label()));
        }
        return new RecordsCanaries(canaries, digits);
    }

    private static int[] withSpace(int[] prefix, Tokenizer tok) {
        return prefix; // digits follow the prefix directly; kept as a seam for other tokenizers
    }

    boolean isEmpty() {
        return canaries.isEmpty();
    }

    int size() {
        return canaries.size();
    }

    /** Mean exposure over the canaries of an add-0.01 bigram model trained on the output. */
    double exposure(List<int[]> output, int vocab, long seed) {
        BigramModel m = BigramModel.train(output, vocab, 0.01);
        double sum = 0;
        for (int i = 0; i < canaries.size(); i++) {
            CanaryExposure.Canary c = canaries.get(i);
            sum +=
                    CanaryExposure.exposure(
                            c,
                            CanaryExposure.candidates(
                                    c, digits, RecordsEvaluation.CANARY_CANDIDATES, seed + 31L * i),
                            m);
        }
        return sum / canaries.size();
    }
}
