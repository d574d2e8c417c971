package org.hotpate.model;

/**
 * A dead letter (schemas/rejected_record.avsc) on the operator-only {@code rejected} topic. {@code
 * teacherId} is -1 and {@code runId} null when unknown; {@code value} holds the raw bytes of
 * records that could not be decoded.
 */
public record Rejected(
        String topic,
        String reason,
        String detail,
        String runId,
        long teacherId,
        int partition,
        long offset,
        byte[] value,
        long atMs) {

    /**
     * A dead letter keeps at most this many bytes of the rejected record: an oversized input must
     * not make an oversized dead letter, which the sink could not write (a restart loop).
     */
    public static final int MAX_VALUE_BYTES = 4096;

    public Rejected {
        if (value != null && value.length > MAX_VALUE_BYTES) {
            detail =
                    (detail == null ? "" : detail + " ")
                            + "(value truncated to its first "
                            + MAX_VALUE_BYTES
                            + " of "
                            + value.length
                            + " bytes)";
            value = java.util.Arrays.copyOf(value, MAX_VALUE_BYTES);
        }
    }

    /** Reasons, as written to the {@code reason} field. */
    public static final String UNDECODABLE = "UNDECODABLE";

    /**
     * Avro single-object bytes with a well-formed header whose schema fingerprint is none this
     * version reads (a producer on another schema version, or another record type on the topic).
     */
    public static final String UNKNOWN_SCHEMA = "UNKNOWN_SCHEMA";

    /**
     * A private record on the topic whose user, text or label bytes are not valid UTF-8 (the same
     * reason as {@code RecordValidator.NOT_UTF8} for a records-file line).
     */
    public static final String NOT_UTF8 = "NOT_UTF8";

    public static final String INVALID_DISTRIBUTION = "INVALID_DISTRIBUTION";
    public static final String UNKNOWN_TEACHER = "UNKNOWN_TEACHER";
    public static final String UNKNOWN_STEP = "UNKNOWN_STEP";
    public static final String DUPLICATE_VOTE = "DUPLICATE_VOTE";
    public static final String RANDOMNESS_VERSION = "RANDOMNESS_VERSION";

    /**
     * A distribution for a step that is closed: the reducer already aggregated it, or its sequence
     * has moved on to a later position or attempt.
     */
    public static final String LATE_VOTE = "LATE_VOTE";

    /**
     * A step on the steps topic that this run did not issue: wrong vocabulary size, randomness
     * version or ensemble, a public seed other than the one the run derives for its
     * run/sequence/position/attempt, or a position out of range. It never opens.
     */
    public static final String INVALID_STEP = "INVALID_STEP";

    /**
     * A second candidate for a step key the run already released (never published, never charged).
     */
    public static final String DUPLICATE_RELEASE = "DUPLICATE_RELEASE";

    /** A rejection of a decoded answer or vote of {@code teacherId} in run {@code runId}. */
    public static Rejected of(
            String topic, String reason, String detail, String runId, long teacherId) {
        return new Rejected(
                topic, reason, detail, runId, teacherId, -1, -1L, null, System.currentTimeMillis());
    }

    /** A rejection of a raw Kafka record (its topic, partition, offset and bytes). */
    public static Rejected ofRaw(
            RawRecord r, String reason, String detail, String runId, byte[] value) {
        return new Rejected(
                r.topic(),
                reason,
                detail,
                runId,
                -1,
                r.partition(),
                r.offset(),
                value,
                System.currentTimeMillis());
    }
}
