package org.hotpate.core.noise;

import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * DP noise that a re-run of the same query reproduces: a deterministic random bit generator keyed
 * by a <em>secret</em> and a public label (PRIVACY.md §1.4 and §8: "derive the noise from a secret
 * keyed PRF over (streamId, step, attempt) so that a replay reproduces the same release"). The
 * streaming job labels each step by (run, sequence, position, attempt) under the secret of the
 * run's ledger account ({@link #forStep(byte[], String, String, long, int, int)}), so a step that
 * is closed again after a failure and a restore releases the same answer instead of a second, fresh
 * one, while two forks resumed from one snapshot (two accounts) draw independent noise.
 *
 * <p>Construction, version 1 (byte-exact; {@code BE32}/{@code BE64} are big-endian two's-complement
 * encodings, strings UTF-8):
 *
 * <ol>
 *   <li>Step key: {@code K = HMAC-SHA256(secret, "hotpate-noise-v1" || 0x00 || label)} (32 bytes;
 *       the tag is 16 ASCII bytes). For a generation step, {@code label = BE32(len(runId)) || runId
 *       || BE64(sequenceId) || BE32(step) || BE32(attempt)} ({@link #forStep}).
 *   <li>Stream: the AES-256-CTR key stream under {@code K} with the 128-bit big-endian counter
 *       block starting at 0: {@code AES_K(0) || AES_K(1) || ...} (Java {@code AES/CTR/NoPadding},
 *       IV = 16 zero bytes, encrypting zeros). A fresh key per label makes the zero IV safe: no
 *       (key, counter) pair is ever reused.
 *   <li>Words: consecutive 8-byte big-endian words of the stream, consumed by the rejection sampler
 *       of {@link BitPoolSource} (low bits of a word first).
 * </ol>
 *
 * <p>Privacy: with a uniformly random 32-byte secret unknown to the adversary, HMAC-SHA256 is a PRF
 * and AES-256-CTR a PRG, so the noise is computationally indistinguishable from {@link
 * NoiseSources#secure()} noise and the mechanisms' DP guarantees hold against computationally
 * bounded adversaries. The label is public (it is the step's identity), so everything rests on the
 * secret: draw it from {@link java.security.SecureRandom} ({@link #newSecret()}), never derive it
 * from a seed, never publish it. Instances refuse Java serialization so the secret cannot leak into
 * a serialized operator or a log by accident. Not thread-safe: one instance per release.
 */
public final class KeyedNoiseSource extends BitPoolSource {
    private static final long serialVersionUID = 1L;

    /** Length of the secret in bytes. */
    public static final int SECRET_BYTES = 32;

    private static final byte[] TAG = "hotpate-noise-v1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ACCOUNT_TAG =
            "hotpate-account-v1".getBytes(StandardCharsets.US_ASCII);
    // Key-stream bytes produced per cipher call: large enough that the call overhead vanishes next
    // to AES itself (a GNMax step over 128 256 tokens reads ~1.2 MB), small enough for the cache.
    private static final int CHUNK = 8192;
    private static final byte[] ZEROS = new byte[CHUNK]; // the plaintext: only ever read
    private static final VarHandle BIG_ENDIAN_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final transient Cipher cipher;
    private final transient byte[] stream = new byte[CHUNK];
    private transient int pos = CHUNK;

    private KeyedNoiseSource(byte[] stepKey) {
        try {
            cipher = Cipher.getInstance("AES/CTR/NoPadding");
            cipher.init(
                    Cipher.ENCRYPT_MODE,
                    new SecretKeySpec(stepKey, "AES"),
                    new IvParameterSpec(new byte[16]));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256-CTR is not available in this JVM", e);
        }
    }

    /** A fresh 32-byte secret from {@link java.security.SecureRandom} (DRBG when available). */
    public static byte[] newSecret() {
        byte[] s = new byte[SECRET_BYTES];
        NoiseSources.newSecureRandom().nextBytes(s);
        return s;
    }

    /** A run's secret: exactly {@value #SECRET_BYTES} bytes. */
    private static void checkSecret(byte[] secret) {
        if (secret == null || secret.length != SECRET_BYTES) {
            throw new IllegalArgumentException(
                    "secret must be "
                            + SECRET_BYTES
                            + " bytes; got "
                            + (secret == null ? "null" : secret.length + " bytes"));
        }
    }

    /** The noise source for {@code label} under {@code secret} (32 bytes). */
    public static KeyedNoiseSource of(byte[] secret, byte[] label) {
        checkSecret(secret);
        if (label == null) {
            throw new IllegalArgumentException("label must not be null");
        }
        byte[] key = stepKey(secret, label);
        try {
            return new KeyedNoiseSource(key);
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }

    /** The noise source of one generation step (see the class comment for the label bytes). */
    public static KeyedNoiseSource forStep(
            byte[] secret, String runId, long sequenceId, int step, int attempt) {
        return of(secret, stepLabel(runId, sequenceId, step, attempt));
    }

    /**
     * The noise source of one generation step charged to ledger account {@code account}: {@link
     * #forStep} under {@link #accountSecret}{@code (secret, account)}. Every ledger account — the
     * run ({@code account = runId}) and each resumed fork {@code <runId>~r<k>} — draws its own
     * noise, although a fork restores the run's secret and keeps its run id and step keys; within
     * one account a re-closed step still draws the same noise.
     */
    public static KeyedNoiseSource forStep(
            byte[] secret, String account, String runId, long sequenceId, int step, int attempt) {
        byte[] key = accountSecret(secret, account);
        try {
            return forStep(key, runId, sequenceId, step, attempt);
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }

    /**
     * The secret of ledger account {@code account} under the run's {@code secret}: {@code
     * HMAC-SHA256(secret, "hotpate-account-v1" || 0x00 || BE32(len(account)) || account)} (32
     * bytes; the tag is 18 ASCII bytes). Two accounts' secrets are independent pseudorandom keys
     * (HMAC-SHA256 is a PRF keyed by the secret), so two branches resumed from one snapshot draw
     * computationally independent noise at the same step keys.
     */
    public static byte[] accountSecret(byte[] secret, String account) {
        checkSecret(secret);
        if (account == null) {
            throw new IllegalArgumentException("account must not be null");
        }
        byte[] a = account.getBytes(StandardCharsets.UTF_8);
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(ACCOUNT_TAG);
            mac.update((byte) 0);
            mac.update(ByteBuffer.allocate(4).putInt(a.length).array());
            mac.update(a);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this JVM", e);
        }
    }

    /** {@code BE32(len(runId)) || runId || BE64(sequenceId) || BE32(step) || BE32(attempt)}. */
    public static byte[] stepLabel(String runId, long sequenceId, int step, int attempt) {
        if (runId == null) {
            throw new IllegalArgumentException("runId must not be null");
        }
        byte[] run = runId.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + run.length + 8 + 4 + 4)
                .putInt(run.length)
                .put(run)
                .putLong(sequenceId)
                .putInt(step)
                .putInt(attempt)
                .array();
    }

    static byte[] stepKey(byte[] secret, byte[] label) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(TAG);
            mac.update((byte) 0);
            mac.update(label);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this JVM", e);
        }
    }

    @Override
    protected long nextWord() {
        if (pos + 8 > CHUNK) {
            try {
                cipher.update(ZEROS, 0, CHUNK, stream, 0);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("AES-CTR key stream failed", e);
            }
            pos = 0;
        }
        long w = (long) BIG_ENDIAN_LONG.get(stream, pos);
        pos += 8;
        return w;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        throw new NotSerializableException(
                "KeyedNoiseSource holds key material and is never serialized");
    }

    @Override
    public String toString() {
        return "KeyedNoiseSource(v1)";
    }
}
