package org.hotpate.io;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.hotpate.model.Distribution;
import org.hotpate.model.PayloadKind;

/**
 * The model-side vote — the one {@code distributions} message that arrives once per vote — read and
 * written straight from and to its bytes, without Avro's generic objects. The bytes are those of
 * Avro single-object encoding of the current {@code TeacherDistribution} schema with a {@code
 * ModelVote} payload (the tests compare both ways with Avro's own encoder and decoder).
 *
 * <p>Only the plain case is handled here: an ASCII run id, the current schema's fingerprint,
 * varints of canonical length, no trailing bytes. Everything else — other payloads, legacy or
 * unknown fingerprints, truncated or odd bytes — returns {@code null} and takes Avro's path, so
 * every error and every edge case is Avro's.
 */
final class ModelVoteCodec {
    private static final int MODEL_VOTE_BRANCH = 2; // payload union: Sparse, TopK, ModelVote, Raw
    private static final int HEADER_LENGTH = 10; // C3 01 + CRC-64-AVRO fingerprint (LE)

    private static final int[] NO_TOKENS = new int[0];
    private static final double[] NO_VALUES = new double[0];

    private final byte[] header;
    private RunId lastRunId; // see runId(): an immutable pair, racy reads are safe

    private record RunId(byte[] bytes, String id) {}

    /** For messages of the schema with this CRC-64-AVRO parsing fingerprint. */
    ModelVoteCodec(long fingerprint) {
        header = new byte[HEADER_LENGTH];
        header[0] = (byte) 0xC3;
        header[1] = 0x01;
        for (int i = 0; i < 8; i++) {
            header[2 + i] = (byte) (fingerprint >>> (8 * i)); // little-endian
        }
    }

    /** The encoded message, or null when {@code d} is not a plain model vote (Avro encodes it). */
    byte[] encode(Distribution d) {
        String runId = d.runId();
        if (d.kind() != PayloadKind.MODEL_VOTE || !isAscii(runId)) {
            return null;
        }
        byte[] b =
                new byte
                        [HEADER_LENGTH
                                + varintLength(runId.length())
                                + runId.length()
                                + varintLength(d.sequenceId())
                                + varintLength(d.step())
                                + varintLength(d.attempt())
                                + varintLength(d.teacherId())
                                + varintLength(MODEL_VOTE_BRANCH)
                                + varintLength(d.voteToken())
                                + varintLength(d.randomnessVersion())
                                + varintLength(d.sentAtMs())];
        System.arraycopy(header, 0, b, 0, HEADER_LENGTH);
        int pos = writeLong(b, HEADER_LENGTH, runId.length());
        for (int i = 0; i < runId.length(); i++) {
            b[pos++] = (byte) runId.charAt(i);
        }
        pos = writeLong(b, pos, d.sequenceId());
        pos = writeLong(b, pos, d.step());
        pos = writeLong(b, pos, d.attempt());
        pos = writeLong(b, pos, d.teacherId());
        pos = writeLong(b, pos, MODEL_VOTE_BRANCH);
        pos = writeLong(b, pos, d.voteToken());
        pos = writeLong(b, pos, d.randomnessVersion());
        writeLong(b, pos, d.sentAtMs());
        return b;
    }

    /** The model vote in {@code b}, or null when {@code b} is anything else (Avro decodes it). */
    Distribution decode(byte[] b) {
        if (b.length < HEADER_LENGTH + 9
                || !Arrays.equals(b, 0, HEADER_LENGTH, header, 0, HEADER_LENGTH)) {
            return null;
        }
        Reader r = new Reader(b, HEADER_LENGTH);
        long runIdLength = r.varint(10);
        if (runIdLength < 0 || runIdLength > b.length - r.pos) {
            return null;
        }
        int start = r.pos;
        for (int i = 0; i < runIdLength; i++) {
            if (b[start + i] < 0) {
                return null; // non-ASCII: Avro checks the UTF-8
            }
        }
        r.pos += (int) runIdLength;
        long sequenceId = r.varint(10);
        long step = r.varint(5);
        long attempt = r.varint(5);
        long teacherId = r.varint(10);
        long branch = r.varint(5);
        long token = r.varint(5);
        long version = r.varint(5);
        long sentAtMs = r.varint(10);
        if (!r.ok || r.pos != b.length || branch != MODEL_VOTE_BRANCH) {
            return null;
        }
        return new Distribution(
                runId(b, start, (int) runIdLength),
                sequenceId,
                (int) step,
                (int) attempt,
                teacherId,
                PayloadKind.MODEL_VOTE,
                NO_TOKENS,
                NO_VALUES,
                1.0,
                Double.NaN,
                (int) token,
                (int) version,
                sentAtMs);
    }

    /**
     * The run id at {@code b[start..start+length)}: the last one seen when the bytes match (every
     * vote of a run carries the same id), so the string and its cached hash are shared instead of
     * rebuilt per vote. The cache is one immutable pair, so a racing thread sees a whole pair.
     */
    private String runId(byte[] b, int start, int length) {
        RunId last = lastRunId;
        if (last != null
                && Arrays.equals(b, start, start + length, last.bytes, 0, last.bytes.length)) {
            return last.id;
        }
        String id = new String(b, start, length, StandardCharsets.US_ASCII);
        lastRunId = new RunId(Arrays.copyOfRange(b, start, start + length), id);
        return id;
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    private static int varintLength(long v) {
        long z = (v << 1) ^ (v >> 63);
        return z == 0 ? 1 : (63 - Long.numberOfLeadingZeros(z)) / 7 + 1;
    }

    // Avro int and long: zig-zag, then 7 bits per byte, low group first.
    private static int writeLong(byte[] b, int pos, long v) {
        long z = (v << 1) ^ (v >> 63);
        while ((z & ~0x7FL) != 0) {
            b[pos++] = (byte) ((z & 0x7F) | 0x80);
            z >>>= 7;
        }
        b[pos++] = (byte) z;
        return pos;
    }

    private static final class Reader {
        final byte[] b;
        int pos;
        boolean ok = true;

        Reader(byte[] b, int pos) {
            this.b = b;
            this.pos = pos;
        }

        /**
         * A zig-zag varint of at most {@code maxBytes} bytes whose value fits (ints: 32 bits);
         * anything longer, overlong or cut short clears {@link #ok}.
         */
        long varint(int maxBytes) {
            long z = 0;
            for (int i = 0; i < maxBytes; i++) {
                if (pos >= b.length) {
                    ok = false;
                    return 0;
                }
                int x = b[pos++] & 0xFF;
                z |= (long) (x & 0x7F) << (7 * i);
                if ((x & 0x80) == 0) {
                    if (i > 0 && x == 0) {
                        ok = false; // a non-canonical trailing zero group
                    }
                    long v = (z >>> 1) ^ -(z & 1);
                    if (maxBytes == 5 && (z >>> 32) != 0) {
                        ok = false; // beyond 32 bits: Avro's int rules decide
                    }
                    if (maxBytes == 10 && i == 9 && x > 1) {
                        ok = false; // beyond 64 bits
                    }
                    return v;
                }
            }
            ok = false;
            return 0;
        }
    }
}
