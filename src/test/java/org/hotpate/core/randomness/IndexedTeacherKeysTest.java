package org.hotpate.core.randomness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class IndexedTeacherKeysTest {
    @Test
    void remembersExactlyTheDerivedKeyInAnyOrderOfIndices() {
        IndexedTeacherKeys keys = new IndexedTeacherKeys();
        int[] order = {5, 0, 70_000, 3, 5, 131_071, 1, 70_000};
        for (int i : order) {
            assertThat(keys.of(i)).as("index %d", i).isEqualTo(SeedDerivation.teacherKey(i));
        }
        assertThat(keys.of(3)).isEqualTo(SeedDerivation.teacherKey("3"));
    }

    @Test
    void refusesANegativeIndex() {
        assertThatThrownBy(() -> new IndexedTeacherKeys().of(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("teacher index");
    }

    @Test
    void seedDerivationGivesTheSameKeysFromManyThreads() throws Exception {
        long[] expected = new long[2_000];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = SeedDerivation.teacherKey(i);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<long[]>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                runs.add(
                        pool.submit(
                                () -> {
                                    long[] got = new long[expected.length];
                                    for (int i = 0; i < got.length; i++) {
                                        got[i] = SeedDerivation.teacherKey(i);
                                    }
                                    return got;
                                }));
            }
            for (Future<long[]> f : runs) {
                assertThat(f.get()).isEqualTo(expected);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
