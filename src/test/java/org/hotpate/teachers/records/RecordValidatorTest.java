package org.hotpate.teachers.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.hotpate.model.PrivateRecord;
import org.junit.jupiter.api.Test;

class RecordValidatorTest {
    private final RecordValidator v =
            new RecordValidator(new RecordFields("maintainer", "body", "kind", "", 20));

    private RecordValidator.Result line(String s) {
        return v.line(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldAcceptAnyFieldNamesAndScalarUsers() {
        RecordValidator.Result r =
                line("{\"maintainer\": 42, \"body\": \"hi\", \"kind\": \"spam\"}");
        assertThat(r.valid()).isTrue();
        assertThat(r.record()).isEqualTo(new PrivateRecord("42", "hi", "spam", -1));
        assertThat(line("{\"maintainer\": true, \"body\": \"hi\"}").record().label()).isEmpty();
    }

    @Test
    void shouldFollowADottedPathOnlyWithoutAnExactKey() {
        RecordValidator d = new RecordValidator(new RecordFields("meta.user", "text", "", "", 100));
        assertThat(d.line(b("{\"meta\": {\"user\": \"a\"}, \"text\": \"t\"}")).record().user())
                .isEqualTo("a");
        assertThat(
                        d.line(
                                        b(
                                                "{\"meta.user\": \"top\", \"meta\": {\"user\": \"a\"}, \"text\": \"t\"}"))
                                .record()
                                .user())
                .isEqualTo("top");
    }

    @Test
    void shouldNameEveryBadRecordClass() {
        assertThat(v.line(new byte[] {'{', '"', (byte) 0xC3, '"', '}'}).reason())
                .isEqualTo(RecordValidator.NOT_UTF8);
        assertThat(line("garbage").reason()).isEqualTo(RecordValidator.NOT_JSON_OBJECT);
        assertThat(line("[1, 2]").reason()).isEqualTo(RecordValidator.NOT_JSON_OBJECT);
        assertThat(line("{\"body\": \"x\"}").reason()).isEqualTo(RecordValidator.MISSING_USER);
        assertThat(line("{\"maintainer\": \"  \", \"body\": \"x\"}").reason())
                .isEqualTo(RecordValidator.MISSING_USER);
        assertThat(line("{\"maintainer\": {\"a\": 1}, \"body\": \"x\"}").reason())
                .isEqualTo(RecordValidator.MISSING_USER);
        assertThat(line("{\"maintainer\": \"u\"}").reason())
                .isEqualTo(RecordValidator.MISSING_TEXT);
        assertThat(line("{\"maintainer\": \"u\", \"body\": 7}").reason())
                .isEqualTo(RecordValidator.TEXT_NOT_STRING);
        assertThat(line("{\"maintainer\": \"u\", \"body\": \"\"}").reason())
                .isEqualTo(RecordValidator.EMPTY_TEXT);
        RecordValidator.Result tooLong = line("{\"maintainer\": \"u\", \"body\": \"ééééééééééé\"}");
        assertThat(tooLong.reason()).isEqualTo(RecordValidator.TEXT_TOO_LONG);
        assertThat(tooLong.detail()).contains("22 UTF-8 bytes");
        // the same checks on records read from the topic
        assertThat(v.record(new PrivateRecord("", "x", "", -1)).reason())
                .isEqualTo(RecordValidator.MISSING_USER);
        assertThat(v.record(new PrivateRecord("u", "", "", -1)).reason())
                .isEqualTo(RecordValidator.EMPTY_TEXT);
    }

    /** n counts every user id present (issue 30 item 7): an invalid record still names its user. */
    @Test
    void anInvalidRecordStillNamesItsUser_aLineWithoutAUserNamesNone() {
        assertThat(line("{\"maintainer\": \"u\", \"body\": \"x\"}").user()).isEqualTo("u");
        assertThat(line("{\"maintainer\": \"u\"}").user()).isEqualTo("u");
        assertThat(line("{\"maintainer\": 7, \"body\": 7}").user()).isEqualTo("7");
        assertThat(line("{\"maintainer\": \"u\", \"body\": \"\"}").user()).isEqualTo("u");
        assertThat(line("{\"maintainer\": \"u\", \"body\": \"ééééééééééé\"}").user())
                .isEqualTo("u");
        assertThat(v.record(new PrivateRecord("u", "", "", -1)).user()).isEqualTo("u");
        assertThat(line("garbage").user()).isNull();
        assertThat(line("{\"body\": \"x\"}").user()).isNull();
        assertThat(line("{\"maintainer\": \"  \"}").user()).isNull();
        assertThat(v.record(new PrivateRecord(" ", "", "", -1)).user()).isNull();
    }

    @Test
    void usersReachExactlyOneTeacherInBothKinds() {
        List<String> users = new java.util.ArrayList<>();
        for (int i = 0; i < 500; i++) {
            users.add("user-" + i);
        }
        UserDirectory per = UserDirectory.perUser(users);
        UserDirectory hashed = UserDirectory.hashed(7, 42);
        for (UserDirectory d : List.of(per, hashed)) {
            Set<Long> used = new HashSet<>();
            for (String u : users) {
                long t = d.teacherOf(u);
                assertThat(t).isBetween(0L, d.teachers() - 1L);
                assertThat(d.teacherOf(u)).as("a function of the user alone").isEqualTo(t);
                used.add(t);
            }
            assertThat(used.size()).isEqualTo(d.perUser() ? 500 : 7);
        }
        // heterogeneous: distinct users get distinct teachers (rank in the sorted list)
        assertThat(per.teachers()).isEqualTo(500);
        assertThat(per.teacherOf("user-0")).isZero();
        assertThat(per.teacherOf("nobody")).isEqualTo(-1);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
