package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunSessionCleanupTest {
    @Test
    void deleteQuietly_removesANestedTree(@TempDir Path dir) throws Exception {
        Path root = Files.createDirectories(dir.resolve("flink-tmp/job/op"));
        Files.writeString(root.resolve("sst"), "x");
        Files.writeString(dir.resolve("flink-tmp/top"), "y");
        org.hotpate.io.LocalFiles.deleteTreeQuietly(dir.resolve("flink-tmp"));
        assertThat(dir.resolve("flink-tmp")).doesNotExist();
    }

    @Test
    void deleteQuietly_missingRoot_doesNotThrow(@TempDir Path dir) {
        org.hotpate.io.LocalFiles.deleteTreeQuietly(dir.resolve("gone"));
        assertThat(dir.resolve("gone")).doesNotExist();
    }
}
