package org.hotpate.core.noise;

/** An exact integer-valued noise distribution (immutable; the randomness is passed in). */
public interface IntegerNoise {
    /** One sample, using only uniform integers from {@code random}. */
    long sample(UniformSource random);
}
