package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 39 item 3: the holder of a lease stops releasing before its claim can lapse. */
class LeaseFenceTest {
    private static final Duration MARGIN = Duration.ofSeconds(15);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final long S = 1_000_000_000L;

    @Test
    void aHolderMayReleaseUntilTheMarginPassesWithoutARenewal() {
        LeaseFence f = new LeaseFence("c@7", MARGIN, TIMEOUT, 0);
        assertThat(f.check(15 * S)).isNull();
        f.renewed(10 * S);
        assertThat(f.check(25 * S)).isNull();
        assertThat(f.check(25 * S + 1)).contains("not renewed for 15 s").contains("claim c@7");
    }

    @Test
    void aLostFenceStaysLostEvenIfARenewalArrivesLate() {
        LeaseFence f = new LeaseFence("c@7", MARGIN, TIMEOUT, 0);
        assertThat(f.check(16 * S)).isNotNull();
        f.renewed(16 * S); // a renewal that took long: the claim may have lapsed meanwhile
        assertThat(f.check(17 * S)).isNotNull();
    }

    @Test
    void aFencedClaimIsLostForGood() {
        LeaseFence f = new LeaseFence("c@7", MARGIN, TIMEOUT, 0);
        f.lose("taken over by run r2");
        f.renewed(1);
        assertThat(f.check(2)).isEqualTo("taken over by run r2");
    }

    @Test
    void failedRenewalsAreCountedUntilOneSucceeds() {
        LeaseFence f = new LeaseFence("c@7", MARGIN, TIMEOUT, 0);
        assertThat(f.failed()).isEqualTo(1);
        assertThat(f.failed()).isEqualTo(2);
        f.renewed(S);
        assertThat(f.failed()).isEqualTo(1);
    }

    @Test
    void theMarginMustBeShorterThanTheTimeout() {
        assertThatThrownBy(() -> new LeaseFence("c", TIMEOUT, TIMEOUT, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shorter than its timeout");
    }
}
