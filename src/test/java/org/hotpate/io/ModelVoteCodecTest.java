package org.hotpate.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.SchemaNormalization;
import org.hotpate.model.Distribution;
import org.junit.jupiter.api.Test;

/**
 * The direct model-vote codec writes Avro's bytes and reads what Avro reads; whatever it declines
 * goes to Avro, so {@link AvroWire} answers every input — valid, cut short or corrupted — exactly
 * as Avro's own decoder does.
 */
class ModelVoteCodecTest {
    private static final ModelVoteCodec CODEC =
            new ModelVoteCodec(
                    SchemaNormalization.parsingFingerprint64(
                            org.hotpate.io.avro.TeacherDistribution.getClassSchema()));

    private static Distribution vote(
            String runId,
            long seq,
            int step,
            int attempt,
            long teacher,
            int token,
            int version,
            long sentAt) {
        return Distribution.modelVote(runId, seq, step, attempt, teacher, token, version, sentAt);
    }

    private static List<Distribution> votes() {
        List<Distribution> out = new ArrayList<>();
        out.add(vote("", 0, 0, 0, 0, -1, 0, 0));
        out.add(
                vote(
                        "run-ä".substring(0, 4),
                        Long.MAX_VALUE,
                        Integer.MAX_VALUE,
                        Integer.MIN_VALUE,
                        Long.MIN_VALUE,
                        Integer.MIN_VALUE,
                        Integer.MAX_VALUE,
                        Long.MIN_VALUE));
        SplittableRandom rnd = new SplittableRandom(5);
        for (int i = 0; i < 2_000; i++) {
            int bits = 1 + rnd.nextInt(63); // magnitudes of every varint length
            char[] id = new char[rnd.nextInt(40)];
            for (int c = 0; c < id.length; c++) {
                id[c] = (char) (32 + rnd.nextInt(95));
            }
            out.add(
                    vote(
                            new String(id),
                            rnd.nextLong() >> (63 - bits),
                            (int) (rnd.nextLong() >> (63 - Math.min(bits, 31))),
                            rnd.nextInt(4),
                            rnd.nextLong() >> (63 - bits),
                            rnd.nextInt(-1, 128_256),
                            rnd.nextInt(3),
                            System.currentTimeMillis() + rnd.nextLong(-1_000_000, 1_000_000)));
        }
        return out;
    }

    @Test
    void encode_writesAvrosBytes_andDecodeReadsThemBack() throws Exception {
        for (Distribution d : votes()) {
            byte[] direct = CODEC.encode(d);
            assertThat(direct).as("%s", d).isEqualTo(AvroWire.encodeWithAvro(d));
            Distribution back = CODEC.decode(direct);
            assertThat(back).as("decoded directly").isNotNull();
            assertThat(back)
                    .usingRecursiveComparison()
                    .withEqualsForType(Double::equals, Double.class)
                    .isEqualTo(AvroWire.decodeWithAvro(direct));
        }
    }

    @Test
    void otherPayloadsAndNonAsciiRunIds_goToAvro() throws Exception {
        Distribution sparse =
                Distribution.sparse("r", 1, 2, 0, 3, new int[] {5}, new double[] {1.0});
        assertThat(CODEC.encode(sparse)).isNull();
        assertThat(CODEC.decode(AvroWire.encode(sparse))).isNull();
        Distribution unicode = vote("läuft", 1, 2, 0, 3, 7, 1, 9);
        assertThat(CODEC.encode(unicode)).isNull();
        byte[] b = AvroWire.encode(unicode);
        assertThat(CODEC.decode(b)).isNull();
        assertThat(AvroWire.decodeDistribution(b).runId()).isEqualTo("läuft");
    }

    @Test
    void everyTruncationAndEveryByteValueAtEveryPosition_decodesAsAvroDecodes() {
        byte[] valid = AvroWire.encode(vote("0123-run", 12, 3, 1, 9_999, 128_000, 1, 1L << 40));
        int compared = 0;
        for (int len = 0; len <= valid.length + 1; len++) {
            byte[] cut = Arrays.copyOf(valid, len); // len > length: a trailing zero byte
            assertSameOutcome(cut);
            compared++;
        }
        for (int pos = 0; pos < valid.length; pos++) {
            for (int v = 0; v < 256; v++) {
                byte[] b = valid.clone();
                b[pos] = (byte) v;
                assertSameOutcome(b);
                compared++;
            }
        }
        assertThat(compared).isEqualTo(valid.length * 257 + 2);
    }

    private static void assertSameOutcome(byte[] b) {
        Object viaWire = outcome(() -> AvroWire.decodeDistribution(b));
        Object viaAvro = outcome(() -> AvroWire.decodeWithAvro(b));
        assertThat(viaWire)
                .as("bytes %s", Arrays.toString(b))
                .usingRecursiveComparison()
                .withEqualsForType(Double::equals, Double.class)
                .isEqualTo(viaAvro);
    }

    private interface Decode {
        Distribution get() throws Exception;
    }

    private static Object outcome(Decode f) {
        try {
            return f.get();
        } catch (AvroWire.UndecodableException e) {
            return List.of(e.reason(), String.valueOf(e.getMessage()));
        } catch (Exception e) {
            return List.of(e.getClass().getName(), String.valueOf(e.getMessage()));
        }
    }
}
