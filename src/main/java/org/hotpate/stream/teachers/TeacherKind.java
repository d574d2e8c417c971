package org.hotpate.stream.teachers;

import java.io.Serializable;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.Collector;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.TeacherRecord;

/**
 * One kind of records teacher ({@code teacher.model}), as its settings: how a teacher's admitted
 * records build its keyed state and how it answers a step. {@link RecordsTeacherOperator} holds
 * what every kind shares (the readiness gate, the contribution bound, the open steps, the records
 * count); a kind is registered by name in {@link TeacherKinds}.
 *
 * @param <A> what the operator emits per teacher and step: a {@link Distribution}, or a value that
 *     {@link #distributions} turns into one (an HTTP query, answered asynchronously)
 */
public interface TeacherKind<A> extends Serializable {

    /** The operator's output type (the operator is generic, so Flink cannot extract it). */
    TypeInformation<A> answerType();

    /**
     * Whether the teachers answer inside the job, synchronously: steps then wait in the reducer
     * while the teachers are busy, and the watchdog waits longer ({@code JobConfig#watchdogMs}).
     */
    boolean answersInJob();

    /** Whether the teachers back off to a released population prior ({@code teacher.prior}). */
    default boolean backsOffToPrior() {
        return false;
    }

    /** The teachers of one subtask: registers the kind's keyed state, loads shared models. */
    Teachers<A> open(RuntimeContext runtime) throws Exception;

    /** The operator's answers as the distributions the vote path reads. */
    DataStream<Distribution> distributions(DataStream<A> answers, Wiring job);

    /** What the job graph hands every kind besides its own options. */
    record Wiring(int vocabularySize, long stepDeadlineMs) {}

    /**
     * The teachers of one subtask; each call is for the current key (the teacher), whose keyed
     * state the calls read and write.
     */
    interface Teachers<A> {
        /**
         * Counts one admitted record of the current teacher; {@code counted} records were counted
         * before it.
         */
        void add(TeacherRecord r, long counted) throws Exception;

        /** The current teacher's answer to {@code step}. */
        A answer(long teacher, GenerationStep step) throws Exception;

        /** Answers every open step for the current teacher (its READY timer); a kind may batch. */
        default void answerAll(long teacher, Iterable<GenerationStep> steps, Collector<A> out)
                throws Exception {
            for (GenerationStep s : steps) {
                out.collect(answer(teacher, s));
            }
        }
    }
}
