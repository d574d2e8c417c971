package org.hotpate.core.accounting;

import java.util.Arrays;

/** Which teachers take part in a charging step: active, included by their public coin, voted v. */
final class Involvement {
    private Involvement() {}

    static int[] involved(int[] votes, PublicChargingRandomness r, TeacherLedger ledger) {
        int v = r.token();
        int[] out = new int[16];
        int k = 0;
        for (int i = 0; i < votes.length; i++) {
            // cheap tests first; the coin costs a hash
            if (votes[i] == v && !ledger.isRetired(i) && r.included(i)) {
                if (k == out.length) {
                    out = Arrays.copyOf(out, 2 * k);
                }
                out[k++] = i;
            }
        }
        return Arrays.copyOf(out, k);
    }
}
