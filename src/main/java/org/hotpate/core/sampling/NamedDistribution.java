package org.hotpate.core.sampling;

import static org.hotpate.core.util.Preconditions.checkNotNull;

/** A teacher's distribution together with the teacher's public id (which selects its key). */
public record NamedDistribution(String teacherId, TeacherDistribution distribution) {
    public NamedDistribution {
        checkNotNull("teacherId", teacherId);
        checkNotNull("distribution", distribution);
    }
}
