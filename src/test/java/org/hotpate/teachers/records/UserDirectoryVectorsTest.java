package org.hotpate.teachers.records;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The users → teachers maps shared with the Python teacher worker: {@code
 * clients/python/tests/vectors/user_to_teacher.json} holds users (with non-BMP and compatibility
 * characters, whose UTF-16 order differs from code point order), seeds and ensemble sizes with the
 * teacher this class gives; the worker's tests/test_worker.py must give the same.
 */
class UserDirectoryVectorsTest {
    static final Path FILE = Path.of("clients/python/tests/vectors/user_to_teacher.json");

    @Test
    void theSharedVectorsAreTheJavaDirectorysTeachers() throws Exception {
        JsonNode root = new ObjectMapper().readTree(FILE.toFile());
        JsonNode hashed = root.path("hashed");
        assertThat(hashed.size()).isGreaterThanOrEqualTo(100);
        int spread = 0;
        for (JsonNode c : hashed) {
            long t =
                    UserDirectory.hashed(c.path("teachers").asInt(), c.path("seed").asLong())
                            .teacherOf(c.path("user").asText());
            assertThat(t).as(c.toString()).isEqualTo(c.path("teacher").asLong());
            spread += t > 0 ? 1 : 0;
        }
        assertThat(spread).as("not all in teacher 0").isGreaterThan(hashed.size() / 2);
        List<String> users = new ArrayList<>();
        root.path("perUser").path("users").forEach(u -> users.add(u.asText()));
        UserDirectory perUser = UserDirectory.perUser(users);
        JsonNode byRank = root.path("perUser").path("byRank");
        assertThat(byRank.size()).isEqualTo(users.size());
        for (int i = 0; i < byRank.size(); i++) {
            assertThat(perUser.teacherOf(byRank.get(i).asText())).isEqualTo(i);
        }
    }
}
