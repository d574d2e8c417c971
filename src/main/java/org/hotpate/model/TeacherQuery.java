package org.hotpate.model;

/**
 * A question to an HTTP teacher: the step it answers, the teacher, the filled prompt (the teacher's
 * records + the public prefix: private, it never leaves the job except to the configured teacher
 * endpoint) as text, or as token ids with {@code teacher.token-ids} ({@code promptIds}, else
 * empty), the step's public seed (server-seeded votes) and the step's deadline.
 */
public record TeacherQuery(
        String runId,
        long sequenceId,
        int step,
        int attempt,
        long teacherId,
        String prompt,
        int[] promptIds,
        long publicSeed,
        long deadlineMs)
        implements StepRef {}
