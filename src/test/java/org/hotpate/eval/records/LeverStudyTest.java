package org.hotpate.eval.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.teachers.records.RecordFields;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lever study's own bookkeeping: what it counts as private, public and charged. */
class LeverStudyTest {
    private static final String[] SUBJECTS = {
        "Re: meeting moved to friday afternoon",
        "Re: meeting notes from the board",
        "Re: lunch order for the team"
    };

    private static LeverStudySetup setup(Path dir) throws Exception {
        List<String> priv = new ArrayList<>();
        for (int u = 0; u < 240; u++) {
            priv.add(
                    "{\"user\":\"u%d\",\"subject\":\"%s\"}"
                            .formatted(u, SUBJECTS[u % SUBJECTS.length]));
        }
        List<String> pub = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            pub.add("{\"subject\":\"Re: meeting moved to friday afternoon\"}");
        }
        Path records = Files.write(dir.resolve("private.jsonl"), priv);
        Path publicFile = Files.write(dir.resolve("public.jsonl"), pub);
        return LeverStudySetup.load(
                records,
                new RecordFields("user", "subject", "", "", 1 << 20),
                publicFile,
                3,
                2,
                0.5,
                null,
                new PrivacyBudget(4, 1e-6),
                40 * 8,
                true,
                1);
    }

    private static LeverStudy.Generation generation(double publicConfident) {
        return new LeverStudy.Generation(40, 8, 5, 20, 1, 7, "coordinated", publicConfident);
    }

    @Test
    void confidentPublicTokensAreCountedApartFromTheChargedOnes(@TempDir Path dir)
            throws Exception {
        LeverStudySetup s = setup(dir);
        PrivacyBudget budget = new PrivacyBudget(4, 1e-6);
        LeverStudy.Result off = LeverStudy.run(s, "auto", budget, generation(0), null);
        assertThat(off.tokens()).isPositive();
        assertThat(off.publicTokens()).isZero();

        // p tiny: after a record's first private token every position is the public model's
        LeverStudy.Result on = LeverStudy.run(s, "auto", budget, generation(1e-9), null);
        assertThat(on.publicTokens()).isPositive();
        long withPrivate = Math.round(on.nonEmptyShare() * on.started());
        assertThat(on.tokens())
                .as("one private (charged) token per non-empty record, the rest public")
                .isEqualTo(withPrivate);
        // the same budget (it ends both runs) starts more records when only their first token is
        // charged
        assertThat(on.started()).isGreaterThan(off.started());
    }

    @Test
    void theConfidentGnmaxLeverReadsSigma1ThresholdSigma2InThatOrder(@TempDir Path dir)
            throws Exception {
        LeverStudySetup s = setup(dir);
        PrivacyBudget budget = new PrivacyBudget(4, 1e-6);
        // a threshold no count of these 240 users reaches: nothing is answered, so no token; read
        // in another order (threshold 5, sigma2 1000) it would answer nearly every step
        LeverStudy.Result none =
                LeverStudy.run(s, "confident-gnmax:20:1000:5", budget, generation(0), null);
        assertThat(none.tokens()).isZero();
        assertThat(none.steps()).isPositive();
    }
}
