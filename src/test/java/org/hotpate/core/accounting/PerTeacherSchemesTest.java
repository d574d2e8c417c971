package org.hotpate.core.accounting;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Core's per-teacher pieces: the public charging coins and serializability. The schemes' charging
 * rules (who is involved, who is charged, retirement) are tested on the job's own implementation in
 * {@code protocol.PerTeacherSchemesTest}.
 */
class PerTeacherSchemesTest {

    /** Inclusion frequency ≈ ν: binomial, 4.5 sd bound → false-failure rate < 1e-5. */
    @Test
    void prf_inclusionRateIsNu() {
        PublicChargingRandomness r = PublicChargingRandomness.of(99, 0.3, 0);
        int n = 20_000;
        int hits = 0;
        for (int i = 0; i < n; i++) {
            hits += r.included(i) ? 1 : 0;
        }
        double sd = Math.sqrt(n * 0.3 * 0.7);
        assertThat(Math.abs(hits - n * 0.3)).isLessThan(4.5 * sd);
    }

    /**
     * Flink ships function objects by Java serialization: the mechanisms and configs survive it.
     */
    @Test
    void mechanismsAndConfigs_areSerializable() throws Exception {
        Object[] objects = {
            EnsembleBudgetFilter.Config.plan(
                    new org.hotpate.core.privacy.PrivacyBudget(1, 1e-6),
                    new org.hotpate.core.privacy.PrivacyEvent.Gnmax(40)),
            new SchemeBStep(
                    SchemeBStep.Plan.forTarget(new SchemeBStep.Params(8, 30, 0.5), 1, 1e-6)),
            new SchemeAStep(
                    SchemeAStep.Plan.forTarget(
                            new SchemeAStep.Params(0.01, 100, 300, 0.5), 1, 1e-6)),
            TeacherCharges.of(3),
            DatasetBudget.firstUse(
                    new org.hotpate.core.privacy.PrivacyBudget(3, 1e-6),
                    EnsembleBudgetFilter.Config.plan(
                            new org.hotpate.core.privacy.PrivacyBudget(1, 1e-6),
                            new org.hotpate.core.privacy.PrivacyEvent.Gnmax(40)),
                    new org.hotpate.core.privacy.PrivacyEvent.Gnmax(40))
        };
        for (Object o : objects) {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
                out.writeObject(o);
            }
            try (java.io.ObjectInputStream in =
                    new java.io.ObjectInputStream(
                            new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
                assertThat(in.readObject()).isInstanceOf(o.getClass());
            }
        }
    }
}
