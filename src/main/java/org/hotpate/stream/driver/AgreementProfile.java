package org.hotpate.stream.driver;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.List;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;

/**
 * The agreement profile of a run (operator.json's {@code agreement}): over the released steps whose
 * outcome is a token, the number of teachers that voted for that token — its distribution
 * (nearest-rank percentiles, mean) and a histogram of its share of n in tenths. Fixed size however
 * many steps. Computed from the private votes, so operator-only: never in summary.json, the console
 * or a record (docs/records.md).
 */
final class AgreementProfile {
    static final String MEANING =
            "per released token: the teachers that voted for it (the ledger's releasedVotes), of n"
                    + " teachers; private votes: operator-only";

    private AgreementProfile() {}

    /**
     * The profile of the CHARGE entries of {@code ledger} that released a token ({@code
     * releasedVotes >= 0}); {@code teachers} = n (shares omitted when n is not known, ≤ 0).
     */
    static ObjectNode of(List<LedgerEntry> ledger, int teachers) {
        int[] v =
                ledger.stream()
                        .filter(e -> e.kind() == LedgerKind.CHARGE && e.releasedVotes() >= 0)
                        .mapToInt(LedgerEntry::releasedVotes)
                        .sorted()
                        .toArray();
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("meaning", MEANING);
        o.put("steps", v.length);
        o.put("teachers", teachers);
        if (v.length == 0) {
            return o;
        }
        o.put("min", v[0]);
        o.put("p10", percentile(v, 10));
        o.put("p50", percentile(v, 50));
        o.put("p90", percentile(v, 90));
        o.put("max", v[v.length - 1]);
        double mean = Arrays.stream(v).asDoubleStream().average().orElse(0);
        o.put("mean", round(mean));
        if (teachers > 0) {
            o.put("meanShare", round(mean / teachers));
            o.put("unanimousSteps", Arrays.stream(v).filter(x -> x == teachers).count());
            // shareTenths[k]: steps with votes / n in [k/10, (k+1)/10); the last holds 1.0 too
            long[] tenths = new long[10];
            for (int x : v) {
                tenths[Math.min(9, (int) Math.floor(10.0 * x / teachers))]++;
            }
            var a = o.putArray("shareTenths");
            for (long t : tenths) {
                a.add(t);
            }
        }
        return o;
    }

    /** The nearest-rank percentile of ascending {@code v}: the ⌈p·N/100⌉-th smallest. */
    static int percentile(int[] v, int p) {
        int rank = (int) Math.ceil(p * (double) v.length / 100.0);
        return v[Math.max(0, rank - 1)];
    }

    private static double round(double x) {
        return Math.round(x * 1000) / 1000.0;
    }
}
