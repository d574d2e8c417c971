package org.hotpate.core.noise;

import java.io.Serializable;

/**
 * A {@link UniformSource} that draws uniform integers by rejection on exactly as many random bits
 * as the bound needs (k = bit length of bound − 1; accepted with probability &gt; 1/2). Bits come
 * from a pool of 64-bit words, so most draws cost a shift and a mask, not a call into the
 * underlying generator. Not thread-safe: one instance per thread.
 */
abstract class BitPoolSource implements UniformSource, Serializable {
    private static final long serialVersionUID = 1L;

    private long word;
    private int bitsLeft;

    /** 64 fresh uniform bits. */
    protected abstract long nextWord();

    private long bits(int k) {
        if (k <= bitsLeft) {
            long r = word & ((1L << k) - 1);
            word >>>= k;
            bitsLeft -= k;
            return r;
        }
        long low = word;
        int have = bitsLeft;
        int need = k - have; // 1..63
        word = nextWord();
        long high = word & ((1L << need) - 1);
        word >>>= need;
        bitsLeft = 64 - need;
        return low | (high << have);
    }

    @Override
    public final long nextLong(long bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be > 0; got " + bound);
        }
        if (bound == 1) {
            return 0;
        }
        int k = 64 - Long.numberOfLeadingZeros(bound - 1);
        while (true) {
            long r = bits(k);
            if (r < bound) {
                return r;
            }
        }
    }
}
