package org.hotpate.stream.teachers;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The registry of teacher kinds, one line per kind: the name {@code teacher.model} takes, one line
 * of description (the option's help and docs row), and the factory that checks the options the kind
 * needs and builds it. The spec's choice list, its checks and the job graph ask here.
 */
public final class TeacherKinds {
    private TeacherKinds() {}

    private record Entry(String description, Function<TeacherOptions, TeacherKind<?>> factory) {}

    private static final Map<String, Entry> KINDS = new LinkedHashMap<>();

    static {
        register(
                "ngram",
                "a Witten-Bell token n-gram model per teacher, in RocksDB keyed state",
                NgramTeachers::of);
        register(
                "http",
                "an OpenAI-compatible /v1/completions endpoint prompted with the teacher's records",
                HttpTeachers::of);
    }

    private static void register(
            String name, String description, Function<TeacherOptions, TeacherKind<?>> factory) {
        KINDS.put(name, new Entry(description, factory));
    }

    /** The registered names, in registration order (the first is the default). */
    public static List<String> names() {
        return List.copyOf(KINDS.keySet());
    }

    /** The option's help: every kind with its description. */
    public static String describe() {
        return KINDS.entrySet().stream()
                        .map(e -> e.getKey() + ": " + e.getValue().description())
                        .collect(Collectors.joining("; "))
                + ".";
    }

    /**
     * The kind {@code name} built from {@code options}; an unknown name or an option the kind
     * cannot honour is an {@link IllegalArgumentException} (the unknown name listing the kinds).
     */
    public static TeacherKind<?> of(String name, TeacherOptions options) {
        Entry e = KINDS.get(name);
        checkArgument(
                e != null,
                "teacher.model must be one of "
                        + String.join(", ", names())
                        + "; got '"
                        + name
                        + "'");
        return e.factory().apply(options);
    }
}
