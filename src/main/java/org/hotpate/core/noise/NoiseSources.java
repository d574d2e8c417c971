package org.hotpate.core.noise;

import java.io.ObjectStreamException;
import java.io.Serializable;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Where DP noise comes from.
 *
 * <ul>
 *   <li>{@link #secure()} — the default for every DP mechanism: uniform integers from {@link
 *       SecureRandom} (a DRBG instance and a 4 KiB buffer per thread; thread-safe).
 *   <li>{@link #seededInsecureForTestsOnly(long)} — THE test seam: a seeded, reproducible,
 *       cryptographically worthless generator (SplitMix64). Never use it for a real release; DP
 *       noise must never be derivable from a seed, in particular not from the public step seed.
 * </ul>
 *
 * <p>{@link #seededForNonPrivateReferences(long)} gives the same kind of seeded source to the
 * non-private evaluation references (TARGMAX_T, TWS_T), which add no DP noise at all.
 */
public final class NoiseSources {
    private NoiseSources() {}

    /** The secure default (a shared, thread-safe singleton backed by {@link SecureRandom}). */
    public static UniformSource secure() {
        return SecureSource.INSTANCE;
    }

    /**
     * A source that refuses every draw: for building a mechanism only to read what its parameters
     * fix (its worst-case event), never to release — a draw fails loudly instead of drawing.
     */
    public static UniformSource noDraws() {
        return NoDraws.INSTANCE;
    }

    private enum NoDraws implements UniformSource {
        INSTANCE;

        @Override
        public long nextLong(long bound) {
            throw new IllegalStateException(
                    "this mechanism was built to read its parameters, not to draw noise");
        }
    }

    /**
     * TEST SEAM ONLY: a reproducible source from {@code seed}. Its output is predictable from the
     * seed, so noise drawn from it gives no privacy at all. Not thread-safe.
     */
    public static UniformSource seededInsecureForTestsOnly(long seed) {
        return new SplitMix64Source(seed);
    }

    /**
     * A seeded source for the NON-private evaluation references only (TARGMAX_T, TWS_T), whose
     * randomness is not DP noise and may be reproducible. Never pass it to a DP mechanism.
     */
    public static UniformSource seededForNonPrivateReferences(long seed) {
        return new SplitMix64Source(seed);
    }

    /** SecureRandom-backed; per-thread generator and buffer so concurrent callers never share. */
    private static final class SecureSource implements UniformSource, Serializable {
        private static final long serialVersionUID = 1L;
        static final SecureSource INSTANCE = new SecureSource();
        private static final ThreadLocal<BufferedSecure> LOCAL =
                ThreadLocal.withInitial(BufferedSecure::new);

        @Override
        public long nextLong(long bound) {
            return LOCAL.get().nextLong(bound);
        }

        @Override
        public UniformSource forCurrentThread() {
            return LOCAL.get();
        }

        @Override
        public String toString() {
            return "NoiseSources.secure()";
        }

        private Object readResolve() throws ObjectStreamException {
            return INSTANCE; // keep the singleton; the thread-local state is never serialized
        }
    }

    private static final class BufferedSecure extends BitPoolSource {
        private static final long serialVersionUID = 1L;
        private final transient SecureRandom random = newSecureRandom();
        private final transient byte[] buffer = new byte[4096];
        private transient int pos = buffer.length;

        @Override
        protected long nextWord() {
            if (pos + 8 > buffer.length) {
                random.nextBytes(buffer);
                pos = 0;
            }
            long w = 0;
            for (int i = 0; i < 8; i++) {
                w = (w << 8) | (buffer[pos++] & 0xFFL);
            }
            return w;
        }
    }

    /**
     * NIST SP 800-90A DRBG (Hash_DRBG/SHA-256 by default, seeded by the platform) when available —
     * measured here 2–3× faster per byte than the Linux NativePRNG default — else the platform
     * default.
     */
    static SecureRandom newSecureRandom() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }

    /** SplitMix64 (Steele, Lea, Flood 2014): fast, seeded, serializable; tests only. */
    private static final class SplitMix64Source extends BitPoolSource {
        private static final long serialVersionUID = 1L;
        private long state;

        SplitMix64Source(long seed) {
            this.state = seed;
        }

        @Override
        protected long nextWord() {
            long z = (state += 0x9E3779B97F4A7C15L);
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        @Override
        public String toString() {
            return "NoiseSources.seededInsecureForTestsOnly(...)";
        }
    }
}
