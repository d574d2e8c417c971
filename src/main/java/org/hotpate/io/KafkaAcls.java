package org.hotpate.io;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who may speak on which topic (docs/threat-model.md): the ACL layout hotpate needs on a broker
 * with an authorizer, for two principals.
 *
 * <ul>
 *   <li><b>job</b> (the Flink job and the driver {@code ./hotpate run}): the only writer of {@code
 *       steps}, {@code results}, {@code records}, {@code ledger}, {@code rejected}, {@code
 *       budget-ledger} and {@code teacher-feedback} (transactional ids {@code hotpate-*}); reads
 *       every topic (the job reads steps, distributions, teacher-feedback; the driver follows the
 *       outputs and reads the budget ledger); creates the topics; consumer groups {@code
 *       hotpate-*}.
 *   <li><b>teacher</b> ({@code ./hotpate teachers} or an inference service): reads {@code steps},
 *       writes {@code distributions}, consumer groups {@code hotpate-teachers-*}. Nothing else: it
 *       cannot forge steps or results, and cannot read any output or operator-only topic.
 * </ul>
 *
 * The same layout is written as Strimzi {@code KafkaUser}s in {@code deploy/kafka-users.yaml}
 * (checked against {@link #bindings} by a test).
 */
public final class KafkaAcls {
    private KafkaAcls() {}

    /**
     * The topic names the layout covers: those the job writes, all of them (the job reads every
     * one), and the two the teachers use — they read {@code steps} and write {@code distributions}.
     */
    public record Topics(
            List<String> jobWrites, List<String> all, String steps, String distributions) {
        public Topics {
            jobWrites = List.copyOf(jobWrites);
            all = List.copyOf(all);
        }
    }

    /** Prefix of the job's transactional ids and consumer groups. */
    public static final String JOB_PREFIX = "hotpate-";

    /** Prefix of the teacher workers' consumer groups. */
    public static final String TEACHER_GROUP_PREFIX = "hotpate-teachers-";

    /** Every ACL of the layout for principals {@code User:<jobUser>} and {@code User:<teacher>}. */
    public static List<AclBinding> bindings(Topics t, String jobUser, String teacherUser) {
        List<AclBinding> b = new ArrayList<>();
        String job = "User:" + jobUser;
        String teacher = "User:" + teacherUser;
        for (String topic : t.jobWrites()) {
            b.add(allow(topic(topic), job, AclOperation.WRITE));
        }
        for (String topic : t.all()) {
            b.add(allow(topic(topic), job, AclOperation.READ));
            b.add(allow(topic(topic), job, AclOperation.DESCRIBE));
            b.add(allow(topic(topic), job, AclOperation.CREATE));
            b.add(allow(topic(topic), job, AclOperation.DESCRIBE_CONFIGS));
        }
        ResourcePattern txn =
                new ResourcePattern(
                        ResourceType.TRANSACTIONAL_ID, JOB_PREFIX, PatternType.PREFIXED);
        b.add(allow(txn, job, AclOperation.WRITE));
        b.add(allow(txn, job, AclOperation.DESCRIBE));
        b.add(
                allow(
                        new ResourcePattern(ResourceType.GROUP, JOB_PREFIX, PatternType.PREFIXED),
                        job,
                        AclOperation.READ));
        b.add(allow(topic(t.steps()), teacher, AclOperation.READ));
        b.add(allow(topic(t.steps()), teacher, AclOperation.DESCRIBE));
        b.add(allow(topic(t.distributions()), teacher, AclOperation.WRITE));
        b.add(allow(topic(t.distributions()), teacher, AclOperation.DESCRIBE));
        b.add(
                allow(
                        new ResourcePattern(
                                ResourceType.GROUP, TEACHER_GROUP_PREFIX, PatternType.PREFIXED),
                        teacher,
                        AclOperation.READ));
        return b;
    }

    /** Creates the layout's ACLs with an admin client (a super user's properties). */
    public static void grant(Properties admin, Topics t, String jobUser, String teacherUser) {
        try (Admin a = Admin.create(admin)) {
            a.createAcls(bindings(t, jobUser, teacherUser)).all().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating ACLs", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("creating ACLs failed: " + e.getCause(), e.getCause());
        }
    }

    private static ResourcePattern topic(String name) {
        return new ResourcePattern(ResourceType.TOPIC, name, PatternType.LITERAL);
    }

    private static AclBinding allow(ResourcePattern r, String principal, AclOperation op) {
        return new AclBinding(
                r, new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW));
    }
}
