package org.hotpate.model;

/**
 * Scheme A's released outcome for one involved teacher (schemas/teacher_feedback.avsc), on the
 * operator-only {@code teacher-feedback} topic: the run's accountant writes one per involved
 * teacher of every admitted scheme-a release, in the release's exactly-once transaction, and the
 * teacher-keyed vote operator reads it back to resolve the teacher's pending involvement in step
 * {@link #stepKey()} — one charge when {@code charged} (the outcome was BETWEEN), none otherwise.
 * Internal to the job: data-dependent, never public.
 */
public record TeacherFeedback(
        String runId,
        long sequenceId,
        int step,
        int attempt,
        long teacherId,
        boolean charged,
        long atMs)
        implements StepRef {}
