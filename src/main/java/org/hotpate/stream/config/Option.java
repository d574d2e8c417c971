package org.hotpate.stream.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * One job-spec option, declared once ({@link JobOptions}): its key, type, default, description and
 * validation. From the declarations come the YAML parser ({@link JobSpec}), {@code ./hotpate run
 * --help}, the key table of docs/job-spec.md (checked by a test) and the typed configuration
 * ({@link JobConfig#get}).
 *
 * <p>A <b>derived</b> option ({@link #derived}) has no fixed default: when the spec leaves it out
 * the configuration computes it from other options, and {@link JobConfig#find} returns it as an
 * {@link java.util.Optional}. Specs written before may still spell "derived" as the old sentinel
 * ({@code 0} or {@code ""}); it reads as absent.
 *
 * @param <T> String, Integer, Long, Double, Boolean, {@code Map<String, Double>} or {@code
 *     List<String>}
 */
public final class Option<T> {
    /** How a value is written in YAML and read into Java. */
    public enum Type {
        STRING,
        INT,
        LONG,
        DOUBLE,
        ENUM,
        DOUBLE_MAP,
        STRING_LIST,
        BOOLEAN
    }

    /** A validation rule: what the value must do ("be > 0"), as the message says it. */
    private record Rule<T>(Predicate<T> ok, String requirement) {}

    private final String key;
    private final Type type;
    private final T dflt;
    private final String derivedBy; // null: not derived
    private final T legacyDerived; // the old sentinel meaning "derived", or null
    private final String description;
    private final List<String> choices;
    private final boolean infinity;
    private final List<Rule<T>> rules;

    private Option(
            String key,
            Type type,
            T dflt,
            String derivedBy,
            T legacyDerived,
            String description,
            List<String> choices,
            boolean infinity,
            List<Rule<T>> rules) {
        this.key = key;
        this.type = type;
        this.dflt = dflt;
        this.derivedBy = derivedBy;
        this.legacyDerived = legacyDerived;
        this.description = description;
        this.choices = List.copyOf(choices);
        this.infinity = infinity;
        this.rules = List.copyOf(rules);
    }

    private static <T> Option<T> of(String key, Type type, T dflt, String description) {
        return new Option<>(key, type, dflt, null, null, description, List.of(), false, List.of());
    }

    public static Option<String> string(String key, String dflt, String description) {
        return of(key, Type.STRING, dflt, description);
    }

    public static Option<Boolean> bool(String key, boolean dflt, String description) {
        return of(key, Type.BOOLEAN, dflt, description);
    }

    public static Option<Integer> integer(String key, int dflt, String description) {
        return of(key, Type.INT, dflt, description);
    }

    public static Option<Long> longInt(String key, long dflt, String description) {
        return of(key, Type.LONG, dflt, description);
    }

    public static Option<Double> real(String key, double dflt, String description) {
        return of(key, Type.DOUBLE, dflt, description);
    }

    /** One of {@code choices} (the first one is not implied: {@code dflt} is). */
    public static Option<String> choice(
            String key, String dflt, String description, List<String> choices) {
        return new Option<>(
                key, Type.ENUM, dflt, null, null, description, choices, false, List.of());
    }

    public static Option<Map<String, Double>> doubleMap(
            String key, Map<String, Double> dflt, String description) {
        return of(key, Type.DOUBLE_MAP, Map.copyOf(dflt), description);
    }

    public static Option<List<String>> stringList(
            String key, List<String> dflt, String description) {
        return of(key, Type.STRING_LIST, List.copyOf(dflt), description);
    }

    /**
     * This option without a default: left out, it is derived by the rule {@code derivedBy} (for the
     * docs) — and so is the value {@code legacy} that older specs wrote for "derived".
     */
    public Option<T> derived(String derivedBy, T legacy) {
        return new Option<>(
                key, type, null, derivedBy, legacy, description, choices, infinity, rules);
    }

    /** Also accepts YAML's {@code .inf} (no limit). */
    public Option<T> orInfinity() {
        return new Option<>(
                key, type, dflt, derivedBy, legacyDerived, description, choices, true, rules);
    }

    /**
     * A rule every value must satisfy; otherwise "{@code <key> must <requirement>; got <v>}" (the
     * one message shape: "budget.delta must be in (0, 1); got 2.0").
     */
    public Option<T> check(Predicate<T> ok, String requirement) {
        List<Rule<T>> r = new ArrayList<>(rules);
        r.add(new Rule<>(ok, requirement));
        return new Option<>(
                key, type, dflt, derivedBy, legacyDerived, description, choices, infinity, r);
    }

    public String key() {
        return key;
    }

    public Type type() {
        return type;
    }

    public String description() {
        return description;
    }

    public List<String> choices() {
        return choices;
    }

    /** Whether a spec may leave it out for the configuration to derive. */
    public boolean isDerived() {
        return derivedBy != null;
    }

    /** The default value, or null for a derived option. */
    public T defaultValue() {
        return dflt;
    }

    /** {@code int}, {@code a|b|c}, {@code string-list}, … (help and docs). */
    public String typeName() {
        return type == Type.ENUM
                ? String.join("|", choices)
                : type.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The default as written in YAML, or {@code derived: <rule>} (help and docs). */
    public String defaultText() {
        if (derivedBy != null) {
            return "derived: " + derivedBy;
        }
        return render(dflt);
    }

    static String render(Object v) {
        if (v instanceof List<?> l) {
            return l.stream()
                    .map(x -> "\"" + String.valueOf(x).replace("\n", "\\n") + "\"")
                    .collect(Collectors.joining(", ", "[", "]"));
        }
        if (v instanceof Map<?, ?> m) {
            return m.isEmpty()
                    ? "{}"
                    : m.entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(", ", "{", "}"));
        }
        if (v instanceof String s) {
            return s.isEmpty() ? "\"\"" : s.replace("\n", "\\n");
        }
        if (v instanceof Double d && d.isInfinite()) {
            return ".inf";
        }
        return String.valueOf(v);
    }

    /**
     * The value a spec gives ({@code node}; null or YAML null: absent): the default when absent,
     * null for an absent derived option (or its legacy sentinel). A wrong type or a value against a
     * rule raises {@link JobSpec.SpecException} naming the key.
     */
    T read(JsonNode node) {
        if (node == null || node.isNull()) {
            return dflt;
        }
        T v = parse(node);
        if (legacyDerived != null && legacyDerived.equals(v)) {
            return null;
        }
        validate(v);
        return v;
    }

    /** Checks {@code v} against the declaration (type-correct values from code, e.g. tests). */
    void validate(T v) {
        Objects.requireNonNull(v, key);
        if (type == Type.ENUM && !choices.contains(v)) {
            throw new JobSpec.SpecException(
                    key + " must be one of " + String.join(", ", choices) + "; got '" + v + "'");
        }
        for (Rule<T> r : rules) {
            if (!r.ok().test(v)) {
                throw new JobSpec.SpecException(
                        key + " must " + r.requirement() + "; got " + render(v));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private T parse(JsonNode n) {
        switch (type) {
            case STRING:
            case ENUM:
                if (!n.isValueNode() || n.isBinary()) {
                    throw new JobSpec.SpecException(
                            key
                                    + " must be a "
                                    + (type == Type.ENUM ? "one of " + choices : "string")
                                    + "; got "
                                    + n);
                }
                return (T) n.asText();
            case INT:
                long l = integral(n);
                if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
                    throw new JobSpec.SpecException(key + " is out of range; got " + l);
                }
                return (T) Integer.valueOf((int) l);
            case LONG:
                return (T) Long.valueOf(integral(n));
            case DOUBLE:
                return (T) Double.valueOf(real(n));
            case DOUBLE_MAP:
                return (T) doubles(n);
            case BOOLEAN:
                if (!n.isBoolean()) {
                    throw new JobSpec.SpecException(key + " must be true or false; got " + n);
                }
                return (T) Boolean.valueOf(n.booleanValue());
            default:
                return (T) strings(n);
        }
    }

    private long integral(JsonNode n) {
        if (n.isIntegralNumber() && n.canConvertToLong()) {
            return n.longValue();
        }
        throw new JobSpec.SpecException(key + " must be an integer; got " + n);
    }

    private double real(JsonNode n) {
        if (n.isNumber()) {
            return n.doubleValue();
        }
        if (infinity
                && n.isTextual()
                && n.asText().toLowerCase(Locale.ROOT).matches("\\+?\\.?inf(inity)?")) {
            return Double.POSITIVE_INFINITY;
        }
        throw new JobSpec.SpecException(
                key + " must be a number" + (infinity ? " or .inf" : "") + "; got " + n);
    }

    private Map<String, Double> doubles(JsonNode n) {
        if (!n.isObject()) {
            throw new JobSpec.SpecException(
                    key + " must be a mapping of names to numbers; got " + n);
        }
        Map<String, Double> m = new TreeMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isNumber() || !Double.isFinite(e.getValue().doubleValue())) {
                throw new JobSpec.SpecException(
                        key + "." + e.getKey() + " must be a finite number; got " + e.getValue());
            }
            m.put(e.getKey(), e.getValue().doubleValue());
        }
        return m;
    }

    private List<String> strings(JsonNode n) {
        if (n.isTextual()) {
            return List.of(n.asText());
        }
        if (!n.isArray()) {
            throw new JobSpec.SpecException(key + " must be a list of strings; got " + n);
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : n) {
            if (!e.isTextual()) {
                throw new JobSpec.SpecException(key + " must be a list of strings; got " + n);
            }
            out.add(e.asText());
        }
        return List.copyOf(out);
    }

    @Override
    public String toString() {
        return key;
    }

    /** {@code o}, checked to be > 0 (the shared rule of the option registries). */
    static Option<Integer> positive(Option<Integer> o) {
        return o.check(v -> v > 0, "be > 0");
    }

    /** {@code o}, checked to be > 0. */
    static Option<Long> positiveLong(Option<Long> o) {
        return o.check(v -> v > 0, "be > 0");
    }

    /** {@code o}, checked to be in (0, 1). */
    static Option<Double> openUnit(Option<Double> o) {
        return o.check(v -> v > 0 && v < 1, "be in (0, 1)");
    }
}
