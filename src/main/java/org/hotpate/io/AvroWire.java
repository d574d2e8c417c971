package org.hotpate.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.specific.SpecificData;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.Outcome;
import org.hotpate.model.PayloadKind;
import org.hotpate.model.PrivateRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.model.TeacherFeedback;

/**
 * The wire format of every topic: Avro single-object encoding (2-byte marker, 8-byte CRC-64
 * fingerprint of the writer schema, Avro binary body; Avro's BinaryMessageEncoder/Decoder), mapped
 * to and from the plain model records (org.hotpate.model). Generated Avro classes never leave this
 * package.
 *
 * <p>Decoding throws {@link UndecodableException} for anything that is not a message of the
 * expected schema (wrong fingerprint, truncated bytes, garbage), so callers can dead-letter it.
 *
 * <p>The entries of the budget-ledger topic (one record type, several kinds) are {@link
 * BudgetLedgerWire}'s; it shares the helpers below.
 */
public final class AvroWire {
    private AvroWire() {}

    /**
     * Input that is not a single-object-encoded message of the expected schema; {@link #reason()}
     * is the dead letter's reason: {@link Rejected#UNKNOWN_SCHEMA} for a well-formed header with a
     * fingerprint this version does not read, {@link Rejected#NOT_UTF8} for a string field that is
     * not UTF-8, else {@link Rejected#UNDECODABLE}.
     */
    public static final class UndecodableException extends Exception {
        private static final long serialVersionUID = 1L;
        private final String reason;

        UndecodableException(String message, Throwable cause) {
            this(Rejected.UNDECODABLE, message, cause);
        }

        UndecodableException(String reason, String message, Throwable cause) {
            super(message, cause);
            this.reason = reason;
        }

        public String reason() {
            return reason;
        }
    }

    // ---- steps ----

    public static byte[] encode(GenerationStep s) {
        var a =
                org.hotpate.io.avro.GenerationStep.newBuilder()
                        .setRunId(s.runId())
                        .setEnsembleId(s.ensembleId())
                        .setSequenceId(s.sequenceId())
                        .setStep(s.step())
                        .setAttempt(s.attempt())
                        .setPrefix(ints(s.prefix()))
                        .setPublicSeed(s.publicSeed())
                        .setRandomnessVersion(s.randomnessVersion())
                        .setVocabularySize(s.vocabularySize())
                        .setIssuedAtMs(s.issuedAtMs())
                        .setDeadlineMs(s.deadlineMs())
                        .setPrompt(ints(s.prompt()))
                        .setLabel(s.label() == null || s.label().isEmpty() ? null : s.label())
                        .build();
        return bytes(() -> org.hotpate.io.avro.GenerationStep.getEncoder().encode(a));
    }

    public static GenerationStep decodeStep(byte[] b) throws UndecodableException {
        var a =
                decode(
                        () -> org.hotpate.io.avro.GenerationStep.getDecoder().decode(b),
                        "GenerationStep");
        return new GenerationStep(
                a.getRunId(),
                a.getEnsembleId(),
                a.getSequenceId(),
                a.getStep(),
                a.getAttempt(),
                ints(a.getPrefix()),
                a.getPublicSeed(),
                a.getRandomnessVersion(),
                a.getVocabularySize(),
                a.getIssuedAtMs(),
                a.getDeadlineMs(),
                ints(a.getPrompt()),
                a.getLabel() == null ? "" : a.getLabel());
    }

    // ---- distributions ----

    // Model-side votes (one message per vote) skip Avro's generic objects; see ModelVoteCodec.
    private static final ModelVoteCodec MODEL_VOTES =
            new ModelVoteCodec(
                    SchemaNormalization.parsingFingerprint64(
                            org.hotpate.io.avro.TeacherDistribution.getClassSchema()));

    public static byte[] encode(Distribution d) {
        byte[] vote = MODEL_VOTES.encode(d);
        return vote != null ? vote : encodeWithAvro(d);
    }

    /** {@link #encode(Distribution)} through Avro's generic objects, for every payload. */
    static byte[] encodeWithAvro(Distribution d) {
        Object payload;
        switch (d.kind()) {
            case SPARSE:
                payload =
                        new org.hotpate.io.avro.SparseProbabilities(
                                ints(d.tokens()), doubles(d.values()));
                break;
            case TOP_K_LOGITS:
                payload =
                        new org.hotpate.io.avro.TopKLogits(
                                ints(d.tokens()),
                                doubles(d.values()),
                                d.temperature(),
                                Double.isNaN(d.logNormalizer()) ? null : d.logNormalizer());
                break;
            case MODEL_VOTE:
                payload = new org.hotpate.io.avro.ModelVote(d.voteToken(), d.randomnessVersion());
                break;
            default:
                payload = new org.hotpate.io.avro.RawSamples(ints(d.tokens()));
        }
        var a =
                org.hotpate.io.avro.TeacherDistribution.newBuilder()
                        .setRunId(d.runId())
                        .setSequenceId(d.sequenceId())
                        .setStep(d.step())
                        .setAttempt(d.attempt())
                        .setTeacherId(d.teacherId())
                        .setPayload(payload)
                        .setSentAtMs(d.sentAtMs())
                        .build();
        return bytes(() -> org.hotpate.io.avro.TeacherDistribution.getEncoder().encode(a));
    }

    public static Distribution decodeDistribution(byte[] b) throws UndecodableException {
        Distribution vote = MODEL_VOTES.decode(b);
        return vote != null ? vote : decodeWithAvro(b);
    }

    /** {@link #decodeDistribution} through Avro's generic objects, for every message. */
    static Distribution decodeWithAvro(byte[] b) throws UndecodableException {
        var a =
                decode(
                        () -> org.hotpate.io.avro.TeacherDistribution.getDecoder().decode(b),
                        "TeacherDistribution");
        Object p = a.getPayload();
        PayloadKind kind;
        int[] tokens = new int[0];
        double[] values = new double[0];
        double temperature = 1.0;
        double logZ = Double.NaN;
        int vote = -1;
        int version = 0;
        if (p instanceof org.hotpate.io.avro.SparseProbabilities s) {
            kind = PayloadKind.SPARSE;
            tokens = ints(s.getTokens());
            values = doubles(s.getProbs());
        } else if (p instanceof org.hotpate.io.avro.TopKLogits t) {
            kind = PayloadKind.TOP_K_LOGITS;
            tokens = ints(t.getTokens());
            values = doubles(t.getLogits());
            temperature = t.getTemperature();
            logZ = t.getLogNormalizer() == null ? Double.NaN : t.getLogNormalizer();
        } else if (p instanceof org.hotpate.io.avro.ModelVote v) {
            kind = PayloadKind.MODEL_VOTE;
            vote = v.getToken();
            version = v.getRandomnessVersion();
        } else if (p instanceof org.hotpate.io.avro.RawSamples r) {
            kind = PayloadKind.RAW_SAMPLES;
            tokens = ints(r.getTokens());
        } else {
            throw new UndecodableException(
                    "unknown payload type " + (p == null ? "null" : p.getClass()), null);
        }
        return new Distribution(
                a.getRunId(),
                a.getSequenceId(),
                a.getStep(),
                a.getAttempt(),
                a.getTeacherId(),
                kind,
                tokens,
                values,
                temperature,
                logZ,
                vote,
                version,
                a.getSentAtMs());
    }

    // ---- results ----

    public static byte[] encode(StepResult r) {
        var a =
                org.hotpate.io.avro.StepResult.newBuilder()
                        .setRunId(r.runId())
                        .setSequenceId(r.sequenceId())
                        .setStep(r.step())
                        .setAttempt(r.attempt())
                        .setOutcome(r.outcome().name())
                        .setToken(r.outcome() == Outcome.TOKEN ? r.token() : null)
                        .setMechanism(r.mechanism())
                        .setPrivacyEvent(r.privacyEvent())
                        .setEpsilonSpent(r.epsilonSpent())
                        .setNoisyCount(Double.isNaN(r.noisyCount()) ? null : r.noisyCount())
                        .setTeachers(r.teachers())
                        .build();
        return bytes(() -> org.hotpate.io.avro.StepResult.getEncoder().encode(a));
    }

    /**
     * Decodes current results and v1 results (which also carried chargedTeachers, votesCast and
     * closedAtMs; Avro schema resolution drops them).
     */
    private static final BinaryMessageDecoder<org.hotpate.io.avro.StepResult> RESULT_DECODER =
            decoderWithLegacy(
                    org.hotpate.io.avro.StepResult.getClassSchema(),
                    "/schemas/legacy/step_result-v1.avsc");

    public static StepResult decodeResult(byte[] b) throws UndecodableException {
        var a = decode(() -> RESULT_DECODER.decode(b), "StepResult");
        return new StepResult(
                a.getRunId(),
                a.getSequenceId(),
                a.getStep(),
                a.getAttempt(),
                Outcome.valueOf(a.getOutcome()),
                a.getToken() == null ? -1 : a.getToken(),
                a.getMechanism(),
                a.getPrivacyEvent(),
                a.getEpsilonSpent(),
                a.getNoisyCount() == null ? Double.NaN : a.getNoisyCount(),
                a.getTeachers());
    }

    /** A decoder of {@code current} that also reads messages of the {@code old} writer schemas. */
    static <T> BinaryMessageDecoder<T> decoderWithLegacy(Schema current, String... old) {
        BinaryMessageDecoder<T> d = new BinaryMessageDecoder<>(SpecificData.get(), current);
        for (String resource : old) {
            try (var in = AvroWire.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing legacy schema " + resource);
                }
                d.addSchema(new Schema.Parser().parse(in));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return d;
    }

    // ---- records ----

    public static byte[] encode(SyntheticRecord r) {
        var a =
                org.hotpate.io.avro.SyntheticRecord.newBuilder()
                        .setRunId(r.runId())
                        .setSequenceId(r.sequenceId())
                        .setTokens(ints(r.tokens()))
                        .setText(r.text())
                        .setSteps(r.steps())
                        .setFails(r.fails())
                        .setFallbacks(r.fallbacks())
                        .setFinishReason(r.finishReason().name())
                        .setFinishedAtMs(r.finishedAtMs())
                        .setPrompt(r.prompt() == null ? "" : r.prompt())
                        .setLabel(r.label() == null || r.label().isEmpty() ? null : r.label())
                        .build();
        return bytes(() -> org.hotpate.io.avro.SyntheticRecord.getEncoder().encode(a));
    }

    public static SyntheticRecord decodeRecord(byte[] b) throws UndecodableException {
        var a =
                decode(
                        () -> org.hotpate.io.avro.SyntheticRecord.getDecoder().decode(b),
                        "SyntheticRecord");
        FinishReason reason;
        try {
            reason = FinishReason.valueOf(a.getFinishReason());
        } catch (IllegalArgumentException e) {
            throw new UndecodableException("unknown finish reason " + a.getFinishReason(), e);
        }
        return new SyntheticRecord(
                a.getRunId(),
                a.getSequenceId(),
                ints(a.getTokens()),
                a.getText(),
                a.getSteps(),
                a.getFails(),
                a.getFallbacks(),
                reason,
                a.getFinishedAtMs(),
                a.getPrompt(),
                a.getLabel() == null ? "" : a.getLabel());
    }

    // ---- ledger ----

    public static byte[] encode(LedgerEntry e) {
        var a =
                org.hotpate.io.avro.LedgerEvent.newBuilder()
                        .setRunId(e.runId())
                        .setKind(e.kind().name())
                        .setSequenceId(e.sequenceId())
                        .setStep(e.step())
                        .setAttempt(e.attempt())
                        .setMechanism(e.mechanism())
                        .setPrivacyEvent(e.privacyEvent())
                        .setEpsilonAfter(e.epsilonAfter())
                        .setDelta(e.delta())
                        .setReleases(e.releases())
                        .setTeacherId(e.teacherId() < 0 ? null : e.teacherId())
                        .setAtMs(e.atMs())
                        .setVotesCast(e.votesCast())
                        .setDatasetEpsilonAfter(
                                Double.isNaN(e.datasetEpsilonAfter())
                                        ? null
                                        : e.datasetEpsilonAfter())
                        .setReleasedVotes(e.releasedVotes())
                        .build();
        return bytes(() -> org.hotpate.io.avro.LedgerEvent.getEncoder().encode(a));
    }

    /** Decodes current entries and v1 entries (without releasedVotes: read as -1). */
    private static final BinaryMessageDecoder<org.hotpate.io.avro.LedgerEvent> LEDGER_DECODER =
            decoderWithLegacy(
                    org.hotpate.io.avro.LedgerEvent.getClassSchema(),
                    "/schemas/legacy/ledger_event-v1.avsc");

    public static LedgerEntry decodeLedger(byte[] b) throws UndecodableException {
        var a = decode(() -> LEDGER_DECODER.decode(b), "LedgerEvent");
        LedgerKind kind;
        try {
            kind = LedgerKind.valueOf(a.getKind());
        } catch (IllegalArgumentException e) {
            throw new UndecodableException("unknown ledger entry kind " + a.getKind(), e);
        }
        return new LedgerEntry(
                a.getRunId(),
                kind,
                a.getSequenceId(),
                a.getStep(),
                a.getAttempt(),
                a.getMechanism(),
                a.getPrivacyEvent(),
                a.getEpsilonAfter(),
                a.getDelta(),
                a.getReleases(),
                a.getTeacherId() == null ? -1 : a.getTeacherId(),
                a.getAtMs(),
                a.getVotesCast(),
                a.getDatasetEpsilonAfter() == null ? Double.NaN : a.getDatasetEpsilonAfter(),
                a.getReleasedVotes());
    }

    // ---- teacher feedback (scheme-a) ----

    public static byte[] encode(TeacherFeedback f) {
        var a =
                org.hotpate.io.avro.TeacherFeedback.newBuilder()
                        .setRunId(f.runId())
                        .setSequenceId(f.sequenceId())
                        .setStep(f.step())
                        .setAttempt(f.attempt())
                        .setTeacherId(f.teacherId())
                        .setCharged(f.charged())
                        .setAtMs(f.atMs())
                        .build();
        return bytes(() -> org.hotpate.io.avro.TeacherFeedback.getEncoder().encode(a));
    }

    public static TeacherFeedback decodeTeacherFeedback(byte[] b) throws UndecodableException {
        var a =
                decode(
                        () -> org.hotpate.io.avro.TeacherFeedback.getDecoder().decode(b),
                        "TeacherFeedback");
        return new TeacherFeedback(
                a.getRunId(),
                a.getSequenceId(),
                a.getStep(),
                a.getAttempt(),
                a.getTeacherId(),
                a.getCharged(),
                a.getAtMs());
    }

    // ---- rejected ----

    public static byte[] encode(Rejected r) {
        var a =
                org.hotpate.io.avro.RejectedRecord.newBuilder()
                        .setTopic(r.topic())
                        .setReason(r.reason())
                        .setDetail(r.detail() == null ? "" : r.detail())
                        .setRunId(r.runId())
                        .setTeacherId(r.teacherId() < 0 ? null : r.teacherId())
                        .setPartition(r.partition())
                        .setOffset(r.offset())
                        .setValue(r.value() == null ? null : ByteBuffer.wrap(r.value()))
                        .setAtMs(r.atMs())
                        .build();
        return bytes(() -> org.hotpate.io.avro.RejectedRecord.getEncoder().encode(a));
    }

    public static Rejected decodeRejected(byte[] b) throws UndecodableException {
        var a =
                decode(
                        () -> org.hotpate.io.avro.RejectedRecord.getDecoder().decode(b),
                        "RejectedRecord");
        byte[] value = null;
        if (a.getValue() != null) {
            ByteBuffer v = a.getValue().duplicate();
            value = new byte[v.remaining()];
            v.get(value);
        }
        return new Rejected(
                a.getTopic(),
                a.getReason(),
                a.getDetail(),
                a.getRunId(),
                a.getTeacherId() == null ? -1 : a.getTeacherId(),
                a.getPartition(),
                a.getOffset(),
                value,
                a.getAtMs());
    }

    // ---- private records ----

    public static byte[] encode(PrivateRecord r) {
        var a =
                org.hotpate.io.avro.PrivateRecord.newBuilder()
                        .setUser(r.user())
                        .setText(r.text())
                        .setLabel(r.label() == null || r.label().isEmpty() ? null : r.label())
                        .setEventTimeMs(r.eventTimeMs() < 0 ? null : r.eventTimeMs())
                        .build();
        return bytes(() -> org.hotpate.io.avro.PrivateRecord.getEncoder().encode(a));
    }

    public static PrivateRecord decodePrivateRecord(byte[] b) throws UndecodableException {
        var a =
                decode(
                        () -> org.hotpate.io.avro.PrivateRecord.getDecoder().decode(b),
                        "PrivateRecord");
        // Avro decodes malformed UTF-8 to U+FFFD silently; a record with U+FFFD is re-encoded and
        // must give back its own bytes, else some string field was not valid UTF-8.
        if (hasReplacement(a.getUser())
                || hasReplacement(a.getText())
                || hasReplacement(a.getLabel())) {
            byte[] again = bytes(() -> org.hotpate.io.avro.PrivateRecord.getEncoder().encode(a));
            if (!java.util.Arrays.equals(again, b)) {
                throw new UndecodableException(
                        Rejected.NOT_UTF8,
                        "a string field of the PrivateRecord is not valid UTF-8",
                        null);
            }
        }
        return new PrivateRecord(
                a.getUser(),
                a.getText(),
                a.getLabel() == null ? "" : a.getLabel(),
                a.getEventTimeMs() == null ? -1 : a.getEventTimeMs());
    }

    private static boolean hasReplacement(String s) {
        return s != null && s.indexOf('\uFFFD') >= 0;
    }

    // ---- helpers ----

    /** An Avro encode or decode call. */
    interface IoSupplier<T> {
        T get() throws IOException;
    }

    /** The bytes of an encoded message. */
    static byte[] bytes(IoSupplier<ByteBuffer> f) {
        try {
            ByteBuffer bb = f.get();
            byte[] out = new byte[bb.remaining()];
            bb.get(out);
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("Avro encoding failed", e);
        }
    }

    /** A decoded {@code what} message; anything else is an {@link UndecodableException}. */
    static <T> T decode(IoSupplier<T> f, String what) throws UndecodableException {
        try {
            T t = f.get();
            if (t == null) {
                throw new UndecodableException("not a " + what + " message (empty)", null);
            }
            return t;
        } catch (MissingSchemaException e) {
            throw new UndecodableException(
                    Rejected.UNKNOWN_SCHEMA, "not a " + what + " message: " + e.getMessage(), e);
        } catch (IOException
                | AvroRuntimeException
                | IndexOutOfBoundsException
                | NegativeArraySizeException
                | ClassCastException
                | NullPointerException e) {
            throw new UndecodableException("not a " + what + " message: " + describe(e), e);
        }
    }

    /**
     * The exception's message, or its class where the JVM left none (HotSpot drops the message of
     * an implicit exception thrown often from compiled code: "null" says nothing to an operator).
     */
    private static String describe(Exception e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    static List<Integer> ints(int[] a) {
        List<Integer> l = new ArrayList<>(a == null ? 0 : a.length);
        if (a != null) {
            for (int v : a) {
                l.add(v);
            }
        }
        return l;
    }

    static int[] ints(List<Integer> l) {
        return l == null ? new int[0] : l.stream().mapToInt(Integer::intValue).toArray();
    }

    static List<Double> doubles(double[] a) {
        List<Double> l = new ArrayList<>(a == null ? 0 : a.length);
        if (a != null) {
            for (double v : a) {
                l.add(v);
            }
        }
        return l;
    }

    static double[] doubles(List<Double> l) {
        return l == null ? new double[0] : l.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
